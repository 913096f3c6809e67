package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

func (s *protocolServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if req != nil && req.TypeName == applicationTypeName {
		if resp, ok := s.readUnchanged(ctx, req); ok {
			return resp, nil
		}
	}
	return s.ProviderServer.ReadResource(ctx, req)
}

// readUnchanged refreshes an Application as Read does and, when nothing
// changed, answers with the current state, private data and identity as they
// came: the framework would decode them, find Read left them alone, and
// encode them again. Anything else (drift, a deleted Application, an error,
// a state without identity) goes to the framework, whose Read reads again
// (from the namespace's LIST when one answered the first read).
func (s *protocolServer) readUnchanged(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, bool) {
	data := s.provider.configured.Load()
	cur := req.CurrentState
	if data == nil || cur == nil || req.CurrentIdentity == nil || req.CurrentIdentity.IdentityData == nil ||
		len(cur.JSON) > 0 || len(cur.MsgPack) == 0 || isMsgPackNil(cur.MsgPack) {
		return nil, false
	}
	info := applicationSchemaInfo(ctx)
	if info.err != nil {
		return nil, false
	}
	val, err := cur.Unmarshal(info.typ)
	if err != nil {
		return nil, false
	}
	var state applicationModel
	if diags := (tfsdk.State{Schema: info.schema, Raw: val}).Get(ctx, &state); diags.HasError() {
		return nil, false
	}
	paths, ok := privateKey(req.Private, privateSensitivePaths)
	if !ok {
		return nil, false
	}
	// A pending apply, or a state without the UID, is the framework's: Read
	// changes the private data then.
	if pending, ok := privateKey(req.Private, privateApplyPending); !ok || len(pending) > 0 {
		return nil, false
	}
	if imported, ok := privateKey(req.Private, privateImported); !ok || len(imported) > 0 {
		return nil, false
	}
	uid, ok := privateKey(req.Private, privateUID)
	if !ok || len(uid) == 0 {
		return nil, false
	}
	r := &ApplicationResource{data: data}
	prior := state
	ref, diags := r.refresh(ctx, &state, decodePaths(paths), false, false)
	if ref.gone || len(diags) > 0 || !sameModel(&prior, &state) || `"`+ref.uid+`"` != string(uid) ||
		!identityIs(ctx, info, req.CurrentIdentity.IdentityData, &state) {
		return nil, false
	}
	tflog.Trace(ctx, "refresh of an unchanged deckhouse_application answered by the protocol shortcut")
	return &tfprotov6.ReadResourceResponse{
		NewState:    cur,
		Private:     req.Private,
		NewIdentity: req.CurrentIdentity,
	}, true
}

// privateKey returns one provider key of the framework's private data (a JSON
// object of base64 values); ok is false when the data cannot be read.
func privateKey(private []byte, key string) (value []byte, ok bool) {
	if len(private) == 0 {
		return nil, true
	}
	var m map[string][]byte
	if err := json.Unmarshal(private, &m); err != nil {
		return nil, false
	}
	return m[key], true
}

// identityIs reports whether an encoded identity names the Application of state.
func identityIs(ctx context.Context, info *schemaInfo, data *tfprotov6.DynamicValue, state *applicationModel) bool {
	val, err := data.Unmarshal(info.identity)
	if err != nil {
		return false
	}
	want, err := types.ObjectValueMust(map[string]attr.Type{"namespace": types.StringType, "name": types.StringType},
		map[string]attr.Value{"namespace": state.Namespace, "name": state.Name}).ToTerraformValue(ctx)
	return err == nil && val.Equal(want)
}
