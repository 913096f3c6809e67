package dpclient

import (
	"context"
	"errors"
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

func TestCache_ErrorsAreNotCached(t *testing.T) {
	c := NewForInterfaces(nil, nil, Options{})
	fail := true
	fetch := func(context.Context) (any, error) {
		if fail {
			return nil, errors.New("connection refused")
		}
		return 1, nil
	}
	if _, err := c.cached(context.Background(), "k", fetch); err == nil {
		t.Fatal("want the error")
	}
	fail = false
	if v, err := c.cached(context.Background(), "k", fetch); err != nil || v != 1 {
		t.Fatalf("get after a failure = %v, %v", v, err)
	}
}
