package application

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
)

func TestDPFieldPath_MapsDPsFieldNameToTheAttribute(t *testing.T) {
	settings := map[string]any{"db": map[string]any{"host": "h"}}
	sensitive := map[string]any{"db": map[string]any{"password": "p"}}
	tests := []struct {
		text string
		want path.Path
		ok   bool
	}{
		{`admission webhook denied: validate settings: field "db.host" must match`, path.Root("settings").AtName("db").AtName("host"), true},
		{`field "db.password": must be at least 12 characters long`, path.Root("sensitive_settings").AtName("db").AtName("password"), true},
		{`field "users[2].name" is immutable`, path.Root("settings").AtName("users").AtListIndex(2).AtName("name"), true},
		{`the server is unavailable`, path.Path{}, false},
	}
	for _, tt := range tests {
		got, ok := dpFieldPath(tt.text, settings, sensitive)
		if ok != tt.ok || (ok && !got.Equal(tt.want)) {
			t.Errorf("%q: got %v %v, want %v %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}
