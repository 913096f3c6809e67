package application

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// Delete deletes the Application of the prior state, of which it decodes only
// the attributes of deleteReads.
func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state applicationModel
	if o, err := modelObject(); err != nil || o.DecodeOnly(ctx, req.State.Raw, &state, deleteReads...) != nil {
		resp.Diagnostics.Append(getModel(ctx, req.State, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(r.deleteApp(ctx, &state, readPrivate(ctx, req.Private))...)
}

// deleteApp deletes the Application of state (of which it reads only the
// attributes of deleteReads) within timeouts.delete, waiting for it to be
// gone unless wait is false.
func (r *Resource) deleteApp(ctx context.Context, state *applicationModel, priv privateState) diag.Diagnostics {
	var diags diag.Diagnostics
	ctx, cancel := context.WithTimeout(ctx, state.timeout(ctx, "delete", defaultDeleteTimeout))
	defer cancel()
	cl := providerdata.ClusterClient(ctx, r.data, &diags)
	if cl == nil {
		return diags
	}
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	wait := state.Wait.IsNull() || state.Wait.ValueBool()
	if err := cl.Delete(ctx, ns, name, priv.UID, wait); err != nil {
		diags.AddError(fmt.Sprintf("Cannot delete Application %s/%s", ns, name), deleteErrorText(ctx, cl, state, r.fieldManager(state), priv, err))
	}
	return diags
}

// deleteErrorText is a failed delete's error with DP's status it quotes (a
// timed-out wait for the Application to go) redacted of every value the state does not hold (dpRedactor): the
// Application is read again (on a context of its own, since the delete's may
// have ended); when it cannot be read, DP's status is left out.
func deleteErrorText(ctx context.Context, cl *dpclient.Client, state *applicationModel, manager string, priv privateState, err error) string {
	text := err.Error()
	if !strings.Contains(text, ". Last status: ") {
		return text // no text of DP's
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	obj, gerr := cl.GetApplication(rctx, state.Namespace.ValueString(), state.Name.ValueString())
	if gerr != nil {
		if i := strings.Index(text, ". Last status: "); i >= 0 {
			return text[:i] + ". (DP's last status is left out: it may quote secrets, and the Application could not be read to redact them.)"
		}
		return text
	}
	return redactorOf(obj, priv, heldSettingsOf(obj, manager, priv), nil).Redact(text)
}

// dpFieldRef is how DP's texts name a settings field: field "a.b[0].c".
var dpFieldRef = regexp.MustCompile(`field "([^"]+)"`)

// dpFieldPath maps the first field DP's text names to the attribute path of
// settings or sensitive_settings that holds it.
