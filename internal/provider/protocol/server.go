package protocol

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// EnvVar turns every shortcut off when set to "off" (or "false", "0", "no"),
// or the ones it lists by name (Names), to measure what each one buys.
const EnvVar = "DECKHOUSE_PROVIDER_SHORTCUTS"

// The shortcuts' names in EnvVar.
const (
	shortcutValidate      = "validate"
	shortcutRead          = "read"
	shortcutPlanUnchanged = "plan-unchanged"
	shortcutPlanCreate    = "plan-create"
	shortcutUpgrade       = "upgrade"
)

// Names are the shortcuts' names in EnvVar.
func Names() []string {
	return []string{shortcutValidate, shortcutRead, shortcutPlanUnchanged, shortcutPlanCreate, shortcutUpgrade}
}

// disabled returns the shortcuts EnvVar turns off.
func disabled() map[string]bool {
	v := strings.ToLower(os.Getenv(EnvVar))
	names := strings.Split(v, ",")
	if slices.Contains([]string{"off", "false", "0", "no"}, v) {
		names = Names()
	}
	off := map[string]bool{}
	for _, name := range names {
		off[strings.TrimSpace(name)] = true
	}
	return off
}

// Resource is a resource type the server answers for: New returns the
// resource the provider serves. One without Configure, ModifyPlan,
// ValidateConfig or an identity is left to the framework.
type Resource struct {
	TypeName string
	New      func() resource.Resource
	Off      bool // no shortcut answers for this type, as with EnvVar "off"
}

// Private is the provider's keys of the private state and their values (an
// alias: a resource implements the interfaces below without this package).
type Private = map[string][]byte

// UnchangedPlanner is a resource whose ModifyPlan leaves a plan equal to the
// prior state alone unless PlanUnchanged says its private state asks more.
type UnchangedPlanner interface {
	PlanUnchanged(private Private) bool
}

// UnchangedReader is a resource whose refresh can tell that nothing changed
// without decoding the state, the costly part of a refresh: ReadUnchanged
// reports whether Read would return state and private state as they came
// (any doubt is false), with the diagnostics (warnings) and the identity
// (string attributes by name) Read would give. attrs are the state's known
// top-level strings. next is the context the call goes on with when the
// shortcut does not answer, in which the resource hands what it read to its
// Read, so that no read runs twice for one call.
type UnchangedReader interface {
	ReadUnchanged(ctx context.Context, attrs map[string]string, private Private) (
		identity map[string]string, diags diag.Diagnostics, next context.Context, ok bool)
}

// New returns the framework's server behind this package's for resources.
// providerData is what the provider's Configure handed to resources, nil
// before it ran.
func New(framework tfprotov6.ProviderServerWithListResource, providerData func() any, resources ...Resource) tfprotov6.ProviderServerWithListResource {
	s := &server{ProviderServerWithListResource: framework, providerData: providerData, types: map[string]*target{}, off: disabled()}
	for _, r := range resources {
		s.types[r.TypeName] = &target{Resource: r}
	}
	return s
}

// server is the framework's protocol server behind this package's.
type server struct {
	tfprotov6.ProviderServerWithListResource
	providerData func() any
	types        map[string]*target
	off          map[string]bool // shortcuts turned off by EnvVar
}

// target is a resource type and what the shortcuts know of its schema.
type target struct {
	Resource
	once sync.Once
	info *schemaInfo
}

// schemaOf is what the server knows of a resource type, nil for one it was
// not given.
func (s *server) schemaOf(typeName string) *schemaInfo {
	t := s.types[typeName]
	if t == nil {
		return nil
	}
	t.once.Do(func() { t.info = schemaInfoOf(context.Background(), t.New()) })
	return t.info
}

// target is the resource type named when the shortcuts answer for it.
func (s *server) target(typeName string) *target {
	if info := s.schemaOf(typeName); info == nil || info.err != nil || s.types[typeName].Off {
		return nil
	}
	return s.types[typeName]
}

// configure returns a new resource of t configured as the framework does for
// each call, and Configure's diagnostics; ok is false, nothing run, before
// the provider is configured.
func (s *server) configure(ctx context.Context, t *target) (shortcutResource, diag.Diagnostics, bool) {
	data := s.providerData()
	r, ok := t.New().(shortcutResource)
	if data == nil || !ok {
		return nil, nil, false
	}
	var resp resource.ConfigureResponse
	r.Configure(ctx, resource.ConfigureRequest{ProviderData: data}, &resp)
	return r, resp.Diagnostics, true
}

type shortcutResource interface { // what the shortcuts call of a resource
	resource.ResourceWithConfigure
	resource.ResourceWithModifyPlan
	resource.ResourceWithValidateConfig
}

// isMsgPackNil reports whether a MessagePack value is nil (a null object).
func isMsgPackNil(b []byte) bool { return len(b) == 1 && b[0] == 0xc0 }

// given reports whether v is a MessagePack value other than null.
func given(v *tfprotov6.DynamicValue) bool {
	return v != nil && len(v.JSON) == 0 && len(v.MsgPack) > 0 && !isMsgPackNil(v.MsgPack)
}

// decodeObject decodes an object of typ and its attributes.
func decodeObject(v *tfprotov6.DynamicValue, typ tftypes.Type) (tftypes.Value, map[string]tftypes.Value, error) {
	val, err := v.Unmarshal(typ)
	if err != nil {
		return val, nil, err
	}
	var attrs map[string]tftypes.Value
	return val, attrs, val.As(&attrs)
}

// schemaInfo is what the shortcuts need of a resource type's schema.
type schemaInfo struct {
	schema         schema.Schema
	typ            tftypes.Type
	identitySchema identityschema.Schema
	identity       tftypes.Type
	defaults       map[string]tftypes.Value // attribute name -> default value
	attrs          map[string]attrInfo      // top-level attributes
	err            error                    // why the shortcuts leave the type to the framework
	validateErr    error                    // validation schemaSilent does not run (checkValidation)
}

// attrInfo is what the create plan needs of a top-level attribute.
type attrInfo struct {
	computed, writeOnly, hasDefault bool
	unknownType                     tftypes.Type // of its unknown and null values (DynamicPseudoType for a dynamic one)
}

// schemaInfoOf collects the types of r's schema and identity (nil without an
// identity schema) and the static defaults of the top-level attributes. err
// says why the shortcuts leave the type to the framework.
func schemaInfoOf(ctx context.Context, r resource.Resource) *schemaInfo {
	ri, ok := r.(resource.ResourceWithIdentity)
	if !ok {
		return &schemaInfo{err: errMissingInterface}
	}
	var resp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &resp)
	var idResp resource.IdentitySchemaResponse
	ri.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &idResp)
	if resp.Diagnostics.HasError() || idResp.Diagnostics.HasError() {
		return &schemaInfo{err: errMissingInterface}
	}
	info := schemaInfoFromSchema(ctx, resp.Schema)
	info.identitySchema = idResp.IdentitySchema
	info.identity = idResp.IdentitySchema.Type().TerraformType(ctx)
	if _, ok := r.(shortcutResource); !ok {
		info.err = errMissingInterface
	}
	return info
}

// schemaInfoFromSchema is schemaInfoOf of s alone.
func schemaInfoFromSchema(ctx context.Context, s schema.Schema) *schemaInfo {
	info := &schemaInfo{schema: s, typ: s.Type().TerraformType(ctx), defaults: map[string]tftypes.Value{}, attrs: map[string]attrInfo{}}
	info.validateErr = checkValidation(s)
	if err := checkPlan(s); err != nil {
		info.err = err
		return info
	}
	for name, a := range s.Attributes {
		info.attrs[name] = attrInfo{
			computed: a.IsComputed(), writeOnly: a.IsWriteOnly(), hasDefault: hasDefault(a),
			unknownType: a.GetType().TerraformType(ctx),
		}
		var def attr.Value
		var diags diag.Diagnostics
		switch a := a.(type) {
		case schema.StringAttribute:
			if a.Default != nil {
				var resp defaults.StringResponse
				a.Default.DefaultString(ctx, defaults.StringRequest{}, &resp)
				def, diags = resp.PlanValue, resp.Diagnostics
			}
		case schema.BoolAttribute:
			if a.Default != nil {
				var resp defaults.BoolResponse
				a.Default.DefaultBool(ctx, defaults.BoolRequest{}, &resp)
				def, diags = resp.PlanValue, resp.Diagnostics
			}
		}
		if def == nil && !hasDefault(a) {
			continue
		}
		v, err := tftypes.Value{}, errUnsupportedDefault
		if def != nil && !diags.HasError() {
			v, err = def.ToTerraformValue(ctx)
		}
		if err != nil {
			info.err = err
			return info
		}
		info.defaults[name] = v
	}
	return info
}

var (
	errUnsupportedDefault = errors.New("attribute default not supported by the plan shortcut")
	errMissingInterface   = errors.New("resource without the framework interfaces the shortcuts call")
)

// hasDefault reports whether a schema attribute sets a Default.
func hasDefault(a any) bool {
	v := reflect.ValueOf(a)
	return v.Kind() == reflect.Struct && v.FieldByName("Default").IsValid() && !v.FieldByName("Default").IsZero()
}
