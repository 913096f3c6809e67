// Command noop is the scale benchmark's protocol floor: a provider that
// serves deckhouse_application with the resource's own schema and does no
// work. It plans the proposed state, applies the planned state, and answers a
// refresh with the state it was given, speaking tfprotov6 directly, so what
// a command costs with it is what the CLI and the plugin protocol cost
// (process starts included: the binary links the resource's packages, as the
// provider does). The provider block takes the arguments the benchmark
// writes and ignores them; the resource declares no identity.
package main
