// Command netmirror lays out the archives of a release (what goreleaser
// writes into dist/: one zip per OS and architecture and the SHA256SUMS file
// that covers them) as a directory in the provider network mirror protocol
// layout, which any static HTTPS server can host:
//
//	<out>/<hostname>/<namespace>/<type>/index.json          {"versions": {"0.1.0": {}, ...}}
//	<out>/<hostname>/<namespace>/<type>/<version>.json      {"archives": {"linux_amd64": {"url": "...zip", "hashes": ["h1:...", "zh:..."]}, ...}}
//	<out>/<hostname>/<namespace>/<type>/<name>_<version>_<os>_<arch>.zip
//	<out>/<hostname>/<namespace>/<type>/<name>_<version>_SHA256SUMS (and .sig and _manifest.json, when present)
//
// once per hostname (OpenTofu resolves "deckhouse/deckhouse" to
// registry.opentofu.org, Terraform to registry.terraform.io). A zip's zh:
// hash is its SHA-256 as SHA256SUMS lists it (every zip is checked against
// it first, so a mirror is only ever made of the archives the signed file
// covers); its h1: hash is the hash of its content that `init` records in a
// lock file. A version already in the mirror with other archives is refused
// (lock files that recorded the old hashes would refuse the new ones) unless
// -replace is given; other versions already there stay listed in index.json.
//
// Usage:
//
//	go run ./tools/netmirror -dist dist -out dist/netmirror
package main
