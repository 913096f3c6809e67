package fastpath

import (
	"testing"
)

func TestPrivateData_ReadsTheFrameworkEncoding(t *testing.T) {
	tests := []struct {
		name    string
		private string
		want    string
		ok      bool
	}{
		{name: "empty", private: "", want: "", ok: true},
		{name: "key present", private: `{"sensitive_paths":"W1siYSJdXQ=="}`, want: `[["a"]]`, ok: true},
		{name: "key absent", private: `{".frameworkKey":"e30="}`, want: "", ok: true},
		{name: "not JSON", private: `{`, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := privateData([]byte(tt.private))
			if ok != tt.ok || string(got["sensitive_paths"]) != tt.want {
				t.Fatalf("got %q, %v; want %q, %v", got["sensitive_paths"], ok, tt.want, tt.ok)
			}
		})
	}
}
