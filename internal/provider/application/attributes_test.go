package application

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// sampleOf is a known, non-null value of type t: every attribute and
// element set.
func sampleOf(t attr.Type) attr.Value {
	switch t := t.(type) {
	case types.ObjectType:
		attrs := map[string]attr.Value{}
		for n, at := range t.AttrTypes {
			attrs[n] = sampleOf(at)
		}
		return types.ObjectValueMust(t.AttrTypes, attrs)
	case types.ListType:
		return types.ListValueMust(t.ElemType, []attr.Value{sampleOf(t.ElemType)})
	case types.MapType:
		return types.MapValueMust(t.ElemType, map[string]attr.Value{"k": sampleOf(t.ElemType)})
	case timeouts.Type:
		o := sampleOf(t.ObjectType).(types.Object)
		return timeouts.Value{Object: o}
	}
	switch t {
	case types.StringType:
		return types.StringValue("1")
	case types.Int64Type:
		return types.Int64Value(1)
	case types.BoolType:
		return types.BoolValue(true)
	case types.DynamicType:
		return convert.ToDynamic(map[string]any{"other": int64(1)})
	}
	panic("no sample of " + t.String())
}

// otherThan is a known, non-null value of v's type that differs from v.
func otherThan(v attr.Value) attr.Value {
	ctx := context.Background()
	s := sampleOf(v.Type(ctx))
	if !s.Equal(v) {
		return s
	}
	switch v.(type) {
	case types.Bool:
		return types.BoolValue(false)
	case types.String:
		return types.StringValue("2")
	}
	return nullValue(v.Type(ctx))
}

// sampleUpdate is an update attribute with every field set.
func sampleUpdate() types.Object {
	window := types.ObjectValueMust(windowType().AttrTypes, map[string]attr.Value{
		"from": types.StringValue("8:00"), "to": types.StringValue("15:30"),
		"days": types.ListValueMust(types.StringType, []attr.Value{types.StringValue("Mon"), types.StringValue("Sat")}),
	})
	ut := updateType()
	return types.ObjectValueMust(ut.AttrTypes, map[string]attr.Value{
		"mode":    types.StringValue("Manual"),
		"windows": types.ListValueMust(windowType(), []attr.Value{window}),
		"block_on_alerts": types.ObjectValueMust(ut.AttrTypes["block_on_alerts"].(types.ObjectType).AttrTypes, map[string]attr.Value{
			"enabled": types.BoolValue(true), "severity": types.Int64Value(2),
		}),
	})
}

// updateWith is an update attribute with only field set.
func updateWith(field string, v attr.Value) types.Object {
	ut := updateType()
	attrs := map[string]attr.Value{}
	for n, t := range ut.AttrTypes {
		attrs[n] = nullValue(t)
	}
	attrs[field] = v
	return types.ObjectValueMust(ut.AttrTypes, attrs)
}

func updateType() types.ObjectType { return appstatus.UpdateType.(types.ObjectType) }

func windowType() types.ObjectType {
	return updateType().AttrTypes["windows"].(types.ListType).ElemType.(types.ObjectType)
}

func requestType() types.ObjectType {
	return appstatus.ResourceRequestsType.(types.ListType).ElemType.(types.ObjectType)
}

// request is a resource_requests entry without containers.
func request(kind, name string, replicas types.Int64) types.Object {
	rt := requestType()
	return types.ObjectValueMust(rt.AttrTypes, map[string]attr.Value{
		"kind": types.StringValue(kind), "name": types.StringValue(name), "replicas": replicas,
		"containers": types.ListNull(rt.AttrTypes["containers"].(types.ListType).ElemType),
	})
}

func requestsOf(entries ...types.Object) types.List {
	elems := make([]attr.Value, len(entries))
	for i, e := range entries {
		elems[i] = e
	}
	return types.ListValueMust(requestType(), elems)
}

// sampleResourceRequests is a resource_requests attribute with every field
// set: a Deployment with replicas and a container's limits and requests.
func sampleResourceRequests() types.List {
	rt := requestType()
	ct := rt.AttrTypes["containers"].(types.ListType).ElemType.(types.ObjectType)
	resT := ct.AttrTypes["resources"].(types.ObjectType)
	quantities := func(kv ...string) types.Map {
		m := map[string]attr.Value{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = types.StringValue(kv[i+1])
		}
		return types.MapValueMust(types.StringType, m)
	}
	container := types.ObjectValueMust(ct.AttrTypes, map[string]attr.Value{
		"name": types.StringValue("app"),
		"resources": types.ObjectValueMust(resT.AttrTypes, map[string]attr.Value{
			"limits": quantities("cpu", "500m", "memory", "256Mi"), "requests": quantities("memory", "128Mi"),
		}),
	})
	web := types.ObjectValueMust(rt.AttrTypes, map[string]attr.Value{
		"kind": types.StringValue("Deployment"), "name": types.StringValue("web"), "replicas": types.Int64Value(3),
		"containers": types.ListValueMust(ct, []attr.Value{container}),
	})
	return requestsOf(web, request("DaemonSet", "agent", types.Int64Null()))
}
