package application

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A delete that times out quotes DP's last status; the secrets
// sensitive_settings wrote are redacted from it, in every form.
func TestDelete_TimeoutErrorRedacted(t *testing.T) {
	h := newHarness(t)
	h.dp.SetMessage("password " + guardSecret + " in use; dsn " + url.QueryEscape("u:"+guardSecret) + "; " +
		base64.StdEncoding.EncodeToString([]byte(guardSecret)))
	_, created := createWithSecret(t, h)
	h.dp.KeepOnDelete(true)
	state := h.model(created.state)
	state.Timeouts = timeouts.Value{Object: types.ObjectValueMust(
		map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
		map[string]attr.Value{"create": types.StringNull(), "update": types.StringNull(), "delete": types.StringValue("1s")})}
	null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	resp, err := h.srv.ApplyResourceChange(t.Context(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: encodeModel(t, state), PlannedState: &null, Config: &null,
		PlannedPrivate: created.private,
	})
	if err != nil {
		t.Fatal(err)
	}
	text := diagText(resp.Diagnostics)
	if !hasError(resp.Diagnostics) || !strings.Contains(text, "Last status") {
		t.Fatalf("want a timeout quoting DP's status:\n%s", text)
	}
	for _, needle := range []string{guardSecret, url.QueryEscape(guardSecret), base64.StdEncoding.EncodeToString([]byte(guardSecret))[:8]} {
		if strings.Contains(text, needle) {
			t.Fatalf("the error holds %q:\n%s", needle, text)
		}
	}
}
