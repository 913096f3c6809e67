package fastpath

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// EnvVar turns every shortcut off when set to "off" (or "false", "0", "no"),
// or the ones it lists, comma-separated, by name: "validate", "read",
// "plan-unchanged", "plan-create", "upgrade", "apply-create", "destroy" (the
// apply of a destroy), for measuring what each one buys.
const EnvVar = "DECKHOUSE_PROVIDER_SHORTCUTS"

// The shortcuts' names in EnvVar.
const (
	shortcutValidate      = "validate"
	shortcutRead          = "read"
	shortcutPlanUnchanged = "plan-unchanged"
	shortcutPlanCreate    = "plan-create"
	shortcutUpgrade       = "upgrade"
	shortcutApplyCreate   = "apply-create"
	shortcutDestroy       = "destroy"
)

// Names are the shortcuts' names in EnvVar, in the order of the package
// comment.
func Names() []string {
	return []string{shortcutValidate, shortcutRead, shortcutPlanUnchanged, shortcutPlanCreate,
		shortcutUpgrade, shortcutApplyCreate, shortcutDestroy}
}

// disabled returns the shortcuts EnvVar lists.
func disabled() map[string]bool {
	off := map[string]bool{}
	for _, name := range strings.Split(os.Getenv(EnvVar), ",") {
		if name = strings.TrimSpace(strings.ToLower(name)); name != "" {
			off[name] = true
		}
	}
	return off
}

// Enabled reports whether the shortcuts answer calls.
func Enabled() bool {
	switch strings.ToLower(os.Getenv(EnvVar)) {
	case "off", "false", "0", "no":
		return false
	}
	return true
}

// Resource is a resource type the shortcuts answer for. New must return the
// same resource the provider serves, implementing
// resource.ResourceWithConfigure, resource.ResourceWithModifyPlan,
// resource.ResourceWithValidateConfig and resource.ResourceWithIdentity; a
// type that does not is left to the framework.
type Resource struct {
	TypeName string
	New      func() resource.Resource
}

// Private is the provider's part of the framework's private state: its keys
// and their values as the resource stored them. (An alias, so that a
// resource implements the interfaces below without importing this package.)
type Private = map[string][]byte

// UnchangedPlanner is implemented by a resource whose ModifyPlan leaves a
// plan equal to the prior state alone, unless its private data says
// otherwise. The unchanged-plan shortcut answers only when PlanUnchanged
// returns true.
type UnchangedPlanner interface {
	PlanUnchanged(private Private) bool
}

// UnchangedReader is implemented by a resource whose refresh can tell that
// nothing changed without the state's values. ReadUnchanged reports whether
// the configured resource's Read would return state and private data exactly
// as they came, the diagnostics Read would give with them (warnings: an
// answer with an error is not an unchanged one), and the identity Read would
// set (its string attributes by name); any doubt is false. attrs holds the
// prior state's known, non-null top-level string attributes, read from the
// request's bytes: the state is never decoded into framework values, the
// costly part of a refresh. next is the context the call goes on with when
// the shortcut does not answer (ok false, or an identity the framework must
// judge): a resource that has read something hands it over to its Read
// there, so that no read runs twice for one call.
type UnchangedReader interface {
	ReadUnchanged(ctx context.Context, attrs map[string]string, private Private) (
		identity map[string]string, diags diag.Diagnostics, next context.Context, ok bool)
}

// New returns framework with the shortcuts in front for the given resource
// types. providerData returns what the provider's Configure handed to
// resources, or nil before it ran (the shortcuts that configure a resource
// answer only after it).
func New(framework tfprotov6.ProviderServer, providerData func() any, resources ...Resource) tfprotov6.ProviderServer {
	s := &server{ProviderServer: framework, providerData: providerData, types: map[string]*target{}, off: disabled()}
	for _, r := range resources {
		s.types[r.TypeName] = &target{Resource: r}
	}
	return s
}

// server is the framework's protocol server with the shortcuts.
type server struct {
	tfprotov6.ProviderServer
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

// target returns the resource type a request names, or nil.
func (s *server) target(typeName string) *target {
	t := s.types[typeName]
	if t == nil {
		return nil
	}
	t.once.Do(func() { t.info = schemaInfoOf(context.Background(), t.New()) })
	if t.info.err != nil {
		return nil
	}
	return t
}

// configure returns a new resource of t configured as the framework
// configures one for each call: Configure with the provider's data. ok is
// false, with no resource method run, when the provider is not configured
// yet or the resource has no Configure: the call then goes to the
// framework. diags are Configure's; a shortcut answers them alone when they
// hold an error, as the framework does (configureFailed).
func (s *server) configure(ctx context.Context, t *target) (resource.Resource, diag.Diagnostics, bool) {
	data := s.providerData()
	if data == nil {
		return nil, nil, false
	}
	r := t.New()
	c, ok := r.(resource.ResourceWithConfigure)
	if !ok {
		return nil, nil, false
	}
	var resp resource.ConfigureResponse
	c.Configure(ctx, resource.ConfigureRequest{ProviderData: data}, &resp)
	return r, resp.Diagnostics, true
}

// configured returns a new resource configured with the provider's data, or
// false when the provider is not configured or Configure reported anything.
func (s *server) configured(ctx context.Context, t *target) (resource.Resource, bool) {
	r, diags, ok := s.configure(ctx, t)
	return r, ok && len(diags) == 0
}

// isMsgPackNil reports whether a MessagePack value is nil (a null object).
func isMsgPackNil(b []byte) bool { return len(b) == 1 && b[0] == 0xc0 }

func objectAttributes(v *tfprotov6.DynamicValue, typ tftypes.Type) (map[string]tftypes.Value, error) {
	val, err := v.Unmarshal(typ)
	if err != nil {
		return nil, err
	}
	var attrs map[string]tftypes.Value
	if err := val.As(&attrs); err != nil {
		return nil, err
	}
	return attrs, nil
}

// schemaInfo is what the shortcuts need of a resource type's schema.
type schemaInfo struct {
	schema         schema.Schema
	typ            tftypes.Type
	identitySchema identityschema.Schema
	identity       tftypes.Type
	defaults       map[string]tftypes.Value // attribute name -> default value
	attrs          map[string]attrInfo      // top-level attributes
	err            error
	// validateErr is set when the schema has validation schemaSilent does
	// not run (see checkValidation).
	validateErr error
	// applyErr is set when the schema has what applyCreate does not
	// reproduce (see checkApply).
	applyErr error
	// creator and deleter say whether the resource implements Creator and
	// Deleter.
	creator, deleter bool
}

// attrInfo is what the create shortcut needs of a top-level attribute.
type attrInfo struct {
	computed, writeOnly, hasDefault bool
	// unknownType is the type of the attribute's unknown (and write-only
	// null) value: DynamicPseudoType for dynamic attributes.
	unknownType tftypes.Type
}

// schemaInfoOf collects the object types of r's schema and identity and the
// static defaults of the top-level attributes. A resource without the
// framework interfaces the shortcuts call, or a default they cannot
// evaluate, sets err: the type is then left to the framework.
func schemaInfoOf(ctx context.Context, r resource.Resource) *schemaInfo {
	_, c := r.(resource.ResourceWithConfigure)
	_, m := r.(resource.ResourceWithModifyPlan)
	_, v := r.(resource.ResourceWithValidateConfig)
	ri, i := r.(resource.ResourceWithIdentity)
	if !c || !m || !v || !i {
		return &schemaInfo{err: errMissingInterface}
	}
	var resp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		return &schemaInfo{err: errMissingInterface}
	}
	var idResp resource.IdentitySchemaResponse
	ri.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &idResp)
	info := schemaInfoFromSchema(ctx, resp.Schema)
	_, info.creator = r.(Creator)
	_, info.deleter = r.(Deleter)
	info.identitySchema = idResp.IdentitySchema
	info.identity = idResp.IdentitySchema.Type().TerraformType(ctx)
	return info
}

// schemaInfoFromSchema collects the object type and the static defaults of
// the top-level attributes of s.
func schemaInfoFromSchema(ctx context.Context, s schema.Schema) *schemaInfo {
	info := &schemaInfo{schema: s, typ: s.Type().TerraformType(ctx), defaults: map[string]tftypes.Value{}, attrs: map[string]attrInfo{}}
	info.validateErr = checkValidation(s)
	info.applyErr = checkApply(ctx, s)
	if err := checkPlan(s); err != nil {
		info.err = err
		return info
	}
	for name, a := range s.Attributes {
		info.attrs[name] = attrInfo{
			computed: a.IsComputed(), writeOnly: a.IsWriteOnly(), hasDefault: hasDefault(a),
			unknownType: a.GetType().TerraformType(ctx),
		}
		var (
			v   tftypes.Value
			err error
		)
		switch a := a.(type) {
		case schema.StringAttribute:
			if a.Default == nil {
				continue
			}
			var resp defaults.StringResponse
			a.Default.DefaultString(ctx, defaults.StringRequest{}, &resp)
			v, err = resp.PlanValue.ToTerraformValue(ctx)
			if resp.Diagnostics.HasError() {
				err = errUnsupportedDefault
			}
		case schema.BoolAttribute:
			if a.Default == nil {
				continue
			}
			var resp defaults.BoolResponse
			a.Default.DefaultBool(ctx, defaults.BoolRequest{}, &resp)
			v, err = resp.PlanValue.ToTerraformValue(ctx)
			if resp.Diagnostics.HasError() {
				err = errUnsupportedDefault
			}
		default:
			if hasDefault(a) {
				err = errUnsupportedDefault
			} else {
				continue
			}
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
func hasDefault(a schema.Attribute) bool {
	v := reflect.ValueOf(a)
	if v.Kind() != reflect.Struct {
		return false
	}
	f := v.FieldByName("Default")
	return f.IsValid() && (f.Kind() == reflect.Interface || f.Kind() == reflect.Pointer) && !f.IsNil()
}
