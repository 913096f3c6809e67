package dpclient

import (
	"context"
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCache_ConcurrentCallersShareOneRead(t *testing.T) {
	c := NewForInterfaces(nil, nil, Options{})
	var calls atomic.Int64
	fetch := func(context.Context) (any, error) {
		calls.Add(1)
		time.Sleep(20 * time.Millisecond)
		return "v", nil
	}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.cached(context.Background(), "k", fetch)
			if err != nil || v != "v" {
				t.Errorf("get = %v, %v", v, err)
			}
		}()
	}
	wg.Wait()
	if _, err := c.cached(context.Background(), "k", fetch); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("fetch ran %d times, want 1", n)
	}
	if n := c.Reads()["k"]; n != 1 {
		t.Fatalf("Reads()[k] = %d, want 1", n)
	}
}

// A failed read answers the callers of its key for snapshotMaxAge, then
// the key is read again.
func TestCache_ErrorsAreRememberedForTheSnapshotAge(t *testing.T) {
	c := NewForInterfaces(nil, nil, Options{})
	fail := true
	calls := 0
	fetch := func(context.Context) (any, error) {
		calls++
		if fail {
			return nil, errors.New("connection refused")
		}
		return 1, nil
	}
	for range 3 {
		if _, err := c.cached(context.Background(), "k", fetch); err == nil {
			t.Fatal("want the error")
		}
	}
	if calls != 1 {
		t.Fatalf("%d fetches for three reads of a failed key, want 1", calls)
	}
	fail = false
	c.mu.Lock()
	c.entries["k"] = failedRead{err: errors.New("old"), at: time.Now().Add(-snapshotMaxAge)}
	c.mu.Unlock()
	if v, err := c.cached(context.Background(), "k", fetch); err != nil || v != 1 {
		t.Fatalf("get after the failure expired = %v, %v", v, err)
	}
}

// Reads returns how many requests the cache sent per key, for observability.
func (c *Client) Reads() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.reads)
}
