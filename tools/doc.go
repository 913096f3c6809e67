// Package tools holds the tests of the toolchain scripts beside it
// (bootstrap.sh, matrix.sh); the scripts themselves are the product. The folders under
// tools/ are separate modules that pin the Go development tools.
package tools
