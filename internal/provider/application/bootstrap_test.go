package application

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// TestPackageVersionPending_WaitsOnlyForWhatDPCanStillFix: a missing
// version, one whose metadata is not loaded and one without published
// schemas are waited for; a draft, schemas that do not compile and an
// installable version are final.
func TestPackageVersionPending_WaitsOnlyForWhatDPCanStillFix(t *testing.T) {
	t.Parallel()
	pkg := &engine.Package{}
	tests := []struct {
		name string
		v    *dpclient.PackageVersion
		want bool
	}{
		{"nil", nil, true},
		{"missing", &dpclient.PackageVersion{Name: "x"}, true},
		{"metadata not loaded", &dpclient.PackageVersion{Found: true}, true},
		{"schemas not published yet", &dpclient.PackageVersion{Found: true, MetadataLoaded: true}, true},
		{"draft", &dpclient.PackageVersion{Found: true, Draft: true}, false},
		{"draft and not loaded", &dpclient.PackageVersion{Found: true, Draft: true, MetadataLoaded: false}, false},
		{"schemas do not compile", &dpclient.PackageVersion{Found: true, MetadataLoaded: true, CompileErr: errors.New("bad")}, false},
		{"installable", &dpclient.PackageVersion{Found: true, MetadataLoaded: true, Package: pkg}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := packageVersionPending(tt.v); got != tt.want {
				t.Fatalf("packageVersionPending = %v, want %v", got, tt.want)
			}
		})
	}
}

// apvServer is an API server of one ApplicationPackageVersion: answer
// decides each read's reply (n counts from 1); nil holds the request until
// the client gives up.
func apvServer(t *testing.T, answer func(n int) (int, any)) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		code, body := answer(n)
		mu.Unlock()
		if code == 0 {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func apiStatus(code int, reason string) any {
	return map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": code, "reason": reason, "message": reason}
}

// installableAPV is an ApplicationPackageVersion an Application can be
// installed from.
func installableAPV(name string) any {
	return map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "ApplicationPackageVersion",
		"metadata": map[string]any{"name": name, "resourceVersion": "2"},
		"spec":     map[string]any{"packageName": "demo-app", "packageRepositoryName": "demo", "packageVersion": "v1.0.0"},
		"status": map[string]any{
			"conditions":     []any{map[string]any{"type": "MetadataLoaded", "status": "True", "reason": "Loaded", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
			"packageSchemas": map[string]any{"settingsSchema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{}}}},
		}}
}

// TestAwaitPackageVersion_EndsAtTheVerdictAndNamesTheServer: an API server
// that stops answering during the wait for a version ends it at the
// client's verdict, with an error that names the server, not at the
// operation's deadline with the version's reason.
func TestAwaitPackageVersion_EndsAtTheVerdictAndNamesTheServer(t *testing.T) {
	t.Parallel()
	srv := apvServer(t, func(int) (int, any) { return 0, nil })
	cl, err := dpclient.New(&rest.Config{Host: srv.URL}, dpclient.Options{ReadTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, note, err := awaitPackageVersion(ctx, cl, "demo-demo-app-v1.0.0", "Application demo/a", &dpclient.PackageVersion{Name: "demo-demo-app-v1.0.0"}, 50*time.Millisecond)
	if err == nil {
		t.Fatalf("the wait ended without an error after %s (note %q), want the verdict on the server", time.Since(start).Round(time.Millisecond), note)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the wait took %s, want it to end at the verdict (a request deadline of 500ms): %v", d, err)
	}
	if !dpclient.Classify(err).Verdict() || !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("error %q (class %v), want the verdict naming the server %s", err, dpclient.Classify(err), srv.URL)
	}
}

// TestAwaitPackageVersion_TransientAnswersAreNotYet: 503 and 429 answers of
// a server that answers leave the wait going until the version is ready.
func TestAwaitPackageVersion_TransientAnswersAreNotYet(t *testing.T) {
	t.Parallel()
	const name = "demo-demo-app-v1.0.0"
	srv := apvServer(t, func(n int) (int, any) {
		switch n {
		case 1:
			return http.StatusServiceUnavailable, apiStatus(http.StatusServiceUnavailable, "ServiceUnavailable")
		case 2:
			return http.StatusTooManyRequests, apiStatus(http.StatusTooManyRequests, "TooManyRequests")
		case 3:
			return http.StatusNotFound, apiStatus(http.StatusNotFound, "NotFound")
		}
		return http.StatusOK, installableAPV(name)
	})
	cl, err := dpclient.New(&rest.Config{Host: srv.URL}, dpclient.Options{ReadTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, note, err := awaitPackageVersion(ctx, cl, name, "Application demo/a", &dpclient.PackageVersion{Name: name}, 50*time.Millisecond)
	if err != nil || note != "" || !got.Ready() || got.Package == nil {
		t.Fatalf("wait = %+v, %q, %v; want the installable version", got, note, err)
	}
}

// TestAwaitPackageVersion_RateLimiterAtTheDeadlineIsATimeout: client-go's
// rate limiter refusing to wait past the deadline ends the wait as a
// timeout of a version still pending, not as an error naming the limiter.
func TestAwaitPackageVersion_RateLimiterAtTheDeadlineIsATimeout(t *testing.T) {
	t.Parallel()
	const name = "demo-demo-app-v1.0.0"
	srv := apvServer(t, func(int) (int, any) { return http.StatusNotFound, apiStatus(http.StatusNotFound, "NotFound") })
	// One request now, the next in 1000 s: every read after the first is
	// refused by the rate limiter, whose wait would pass the deadline.
	cl, err := dpclient.New(&rest.Config{Host: srv.URL, QPS: 0.001, Burst: 1}, dpclient.Options{ReadTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	got, note, err := awaitPackageVersion(ctx, cl, name, "Application demo/a", &dpclient.PackageVersion{Name: name}, 50*time.Millisecond)
	if err != nil {
		t.Fatalf("wait error %q, want a timeout of the version still pending", err)
	}
	if !packageVersionPending(got) || !strings.Contains(note, "timeout ended the wait") || strings.Contains(note, "rate limiter") {
		t.Fatalf("wait = %+v, note %q; want the pending version and a timeout note", got, note)
	}
}

// TestAwaitPackageVersion_TimeoutNamesTheServersLastFault: a wait that the
// deadline ends while the server answers with errors says the last of them.
func TestAwaitPackageVersion_TimeoutNamesTheServersLastFault(t *testing.T) {
	t.Parallel()
	const name = "demo-demo-app-v1.0.0"
	srv := apvServer(t, func(int) (int, any) {
		return http.StatusServiceUnavailable, apiStatus(http.StatusServiceUnavailable, "etcd is down")
	})
	cl, err := dpclient.New(&rest.Config{Host: srv.URL}, dpclient.Options{ReadTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, note, err := awaitPackageVersion(ctx, cl, name, "Application demo/a", &dpclient.PackageVersion{Name: name}, 50*time.Millisecond)
	if err != nil || !strings.Contains(note, "timeout ended the wait") || !strings.Contains(note, "etcd is down") {
		t.Fatalf("wait note %q, error %v; want a timeout naming the server's last fault", note, err)
	}
}
