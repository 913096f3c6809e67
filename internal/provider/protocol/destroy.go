package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Destroy plans: without the PlanDestroy capability the CLIs plan a destroy
// themselves (internal/plugin6/grpc_provider.go of OpenTofu 1.12.6 and
// Terraform 1.11.4), keeping the prior private state, but plan no identity.

func (s *server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := s.ProviderServerWithListResource.GetProviderSchema(ctx, req)
	if resp != nil {
		resp.ServerCapabilities = withoutPlanDestroy(resp.ServerCapabilities)
	}
	return resp, err
}

func (s *server) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	resp, err := s.ProviderServerWithListResource.GetMetadata(ctx, req)
	if resp != nil {
		resp.ServerCapabilities = withoutPlanDestroy(resp.ServerCapabilities)
	}
	return resp, err
}

func withoutPlanDestroy(caps *tfprotov6.ServerCapabilities) *tfprotov6.ServerCapabilities {
	if caps == nil {
		return nil
	}
	c := *caps
	c.PlanDestroy = false
	return &c
}

// ApplyResourceChange gives a destroy planned without an identity the one of
// its prior state: a failed delete answers with the identity it got, which
// OpenTofu 1.12 and Terraform 1.12 and later store with the state they keep
// (apply in internal/tofu/node_resource_abstract_instance.go).
func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if req.PlannedIdentity == nil && isNull(req.PlannedState) && !isNull(req.PriorState) {
		if id, ok := s.stateIdentity(req.TypeName, req.PriorState); ok {
			r := *req
			r.PlannedIdentity = id
			req = &r
		}
	}
	return s.ProviderServerWithListResource.ApplyResourceChange(ctx, req)
}

// isNull reports whether a protocol value is missing or a null object.
func isNull(v *tfprotov6.DynamicValue) bool {
	return v == nil || (len(v.JSON) == 0 && (len(v.MsgPack) == 0 || isMsgPackNil(v.MsgPack)))
}

// stateIdentity is the identity of a state: each identity attribute, a
// string, is the state's top-level attribute of that name.
func (s *server) stateIdentity(typeName string, state *tfprotov6.DynamicValue) (*tfprotov6.ResourceIdentityData, bool) {
	info := s.schemaOf(typeName)
	if info == nil || info.identity == nil || len(state.MsgPack) == 0 {
		return nil, false
	}
	obj, ok := info.identity.(tftypes.Object)
	strs, err := topLevelStrings(state.MsgPack)
	if !ok || err != nil {
		return nil, false
	}
	id := make(map[string]string, len(obj.AttributeTypes))
	for name := range obj.AttributeTypes {
		v, ok := strs[name]
		if !ok {
			return nil, false
		}
		id[name] = v
	}
	return identityAnswer(info.identity, nil, id)
}
