package application

import "testing"

// Terraform names the source provider with its registry host, OpenTofu by
// its bare name: both are the hashicorp/kubernetes provider; near misses
// are not.
func TestMoveState_SourceProviderAddressOfEitherCLI(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"registry.terraform.io/hashicorp/kubernetes": true,
		"registry.opentofu.org/hashicorp/kubernetes": true,
		"hashicorp/kubernetes":                       true,
		"kubernetes":                                 true,
		"registry.terraform.io/example/kubernetes":   false,
		"example.com/nothashicorp/kubernetes":        false,
		"kubectl":                                    false,
	} {
		if got := kubernetesProvider(addr); got != want {
			t.Errorf("kubernetesProvider(%q) = %v, want %v", addr, got, want)
		}
	}
}
