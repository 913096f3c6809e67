package application

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// withAttr is o with attribute name set to v.
func withAttr(o types.Object, name string, v attr.Value) types.Object {
	attrs := o.Attributes()
	attrs[name] = v
	return types.ObjectValueMust(o.AttributeTypes(context.Background()), attrs)
}

// update and resource_requests are validated at plan with the rules of
// DP's Application CRD; each diagnostic names the attribute path.
func TestSpecFields_ValidatedWithTheCRDsRules(t *testing.T) {
	ctx := context.Background()
	s := newServers(t, "", "")
	up := sampleUpdate()
	window := up.Attributes()["windows"].(types.List).Elements()[0].(types.Object)
	windows := func(w types.Object) types.List { return types.ListValueMust(windowType(), []attr.Value{w}) }
	alerts := up.Attributes()["block_on_alerts"].(types.Object)
	web := sampleResourceRequests().Elements()[0].(types.Object)
	container := web.Attributes()["containers"].(types.List).Elements()[0].(types.Object)
	resources := container.Attributes()["resources"].(types.Object)
	withContainer := func(c types.Object) types.List {
		return requestsOf(withAttr(web, "containers", types.ListValueMust(c.Type(ctx), []attr.Value{c})))
	}
	tests := []struct {
		name   string
		update types.Object
		reqs   types.List
		at     string // the attribute path the error names; "" = valid
	}{
		{name: "every field valid", update: up, reqs: sampleResourceRequests()},
		{name: "mode not an enum value", update: withAttr(up, "mode", types.StringValue("Sometimes")), at: "update.mode"},
		{name: "window hour 24", update: withAttr(up, "windows", windows(withAttr(window, "from", types.StringValue("24:00")))), at: "update.windows[0].from"},
		{name: "window minute of one digit", update: withAttr(up, "windows", windows(withAttr(window, "to", types.StringValue("9:5")))), at: "update.windows[0].to"},
		{name: "day not Mon..Sun", update: withAttr(up, "windows", windows(withAttr(window, "days",
			types.ListValueMust(types.StringType, []attr.Value{types.StringValue("Monday")})))), at: "update.windows[0].days[0]"},
		{name: "severity above 9", update: withAttr(up, "block_on_alerts", withAttr(alerts, "severity", types.Int64Value(10))), at: "update.block_on_alerts.severity"},
		{name: "severity below 0", update: withAttr(up, "block_on_alerts", withAttr(alerts, "severity", types.Int64Value(-1))), at: "update.block_on_alerts.severity"},
		{name: "kind not a workload kind", reqs: requestsOf(withAttr(web, "kind", types.StringValue("Service"))), at: "resource_requests[0].kind"},
		{name: "empty name", reqs: requestsOf(withAttr(web, "name", types.StringValue(""))), at: "resource_requests[0].name"},
		{name: "negative replicas", reqs: requestsOf(withAttr(web, "replicas", types.Int64Value(-1))), at: "resource_requests[0].replicas"},
		{name: "replicas of a CronJob", reqs: requestsOf(request("CronJob", "nightly", types.Int64Value(1))), at: "resource_requests[0].replicas"},
		{name: "same kind and name twice", reqs: requestsOf(web, web), at: "resource_requests[1]"},
		{name: "limit not a quantity", reqs: withContainer(withAttr(container, "resources", withAttr(resources, "limits",
			types.MapValueMust(types.StringType, map[string]attr.Value{"cpu": types.StringValue("lots")})))), at: `resource_requests[0].containers[0].resources.limits["cpu"]`},
		{name: "empty container name", reqs: withContainer(withAttr(container, "name", types.StringValue(""))), at: "resource_requests[0].containers[0].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := configOf(appState())
			if !tt.update.IsNull() && tt.update.AttributeTypes(ctx) != nil {
				cfg.Update = tt.update
			}
			if tt.reqs.ElementType(ctx) != nil {
				cfg.ResourceRequests = tt.reqs
			}
			resp, err := s.framework.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: TypeName, Config: encodeModel(t, cfg)})
			if err != nil {
				t.Fatal(err)
			}
			if tt.at == "" {
				if len(resp.Diagnostics) > 0 {
					t.Fatalf("a valid configuration gets %s", diagText(resp.Diagnostics))
				}
				return
			}
			if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Attribute == nil {
				t.Fatalf("want one error at %s, got %s", tt.at, diagText(resp.Diagnostics))
			}
			if got := attributePathString(resp.Diagnostics[0].Attribute); got != tt.at {
				t.Fatalf("error at %s, want %s: %s", got, tt.at, diagText(resp.Diagnostics))
			}
		})
	}
}

// attributePathString renders a protocol attribute path as the framework
// renders its paths.
func attributePathString(p *tftypes.AttributePath) string {
	var b strings.Builder
	for i, st := range p.Steps() {
		switch s := st.(type) {
		case tftypes.AttributeName:
			if i > 0 {
				b.WriteString(".")
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			b.WriteString("[" + strconv.FormatInt(int64(s), 10) + "]")
		case tftypes.ElementKeyString:
			b.WriteString(`["` + string(s) + `"]`)
		}
	}
	return b.String()
}
