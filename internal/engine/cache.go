package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sync"

	"golang.org/x/sync/singleflight"
)

// maxCachedPackages bounds the package cache; past it the cache starts over.
const maxCachedPackages = 256

// packageCache holds compiled packages keyed by a hash of their input bytes.
// Concurrent loads of the same bytes compile once (singleflight).
var packageCache = struct {
	mu    sync.Mutex
	m     map[string]*Package
	group singleflight.Group
}{m: map[string]*Package{}}

// cacheKey hashes length-prefixed parts, so distinct inputs never collide by
// concatenation.
func cacheKey(parts ...[]byte) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cached returns the package for key, building it once. Errors are not cached.
func cached(key string, build func() (*Package, error)) (*Package, error) {
	packageCache.mu.Lock()
	if p, ok := packageCache.m[key]; ok {
		packageCache.mu.Unlock()
		return p, nil
	}
	packageCache.mu.Unlock()
	v, err, _ := packageCache.group.Do(key, func() (any, error) {
		packageCache.mu.Lock()
		if p, ok := packageCache.m[key]; ok {
			packageCache.mu.Unlock()
			return p, nil
		}
		packageCache.mu.Unlock()
		p, err := safeBuild(build)
		if err != nil {
			return nil, err
		}
		packageCache.mu.Lock()
		if len(packageCache.m) >= maxCachedPackages {
			packageCache.m = map[string]*Package{}
		}
		packageCache.m[key] = p
		packageCache.mu.Unlock()
		return p, nil
	})
	if err != nil {
		return nil, err
	}
	p, _ := v.(*Package)
	return p, nil
}

// safeBuild turns a panic while compiling (a bug, or a library failing on
// hostile input) into an error instead of crashing the caller.
func safeBuild(build func() (*Package, error)) (p *Package, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &SchemaError{Message: fmt.Sprintf("internal error while compiling the schema: %v", r)}
		}
	}()
	return build()
}
