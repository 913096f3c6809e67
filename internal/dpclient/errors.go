package dpclient

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReadError is a failed read of a DP object at plan or refresh.
type ReadError struct {
	What string // the object, e.g. `ApplicationPackageVersion "main-demo-v1.0.0"`
	Err  error
}

func (e *ReadError) Error() string { return "reading " + e.What + ": " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// retries judges the attempts of one retried request: transient errors are
// retried, 401 once.
type retries struct{ unauthorized int }

func (r *retries) again(err error) bool {
	c := Classify(err)
	if c == ClassUnauthorized {
		r.unauthorized++
		return r.unauthorized <= 1
	}
	return c.Transient()
}

// WriteError is a write (server-side apply or delete) that failed.
type WriteError struct {
	Op        string // "apply" or "delete"
	Namespace string
	Name      string
	Err       error
	// MayHaveLanded is true when an attempt's outcome is unknown: the
	// request may have reached the API server and its reply was lost, or it
	// answered with a server error.
	MayHaveLanded bool
	// NotSent is true when no attempt reached the API server: nothing was
	// written.
	NotSent bool
}

func (e *WriteError) Error() string {
	msg := fmt.Sprintf("%s of Application %s/%s failed: %v", e.Op, e.Namespace, e.Name, e.Err)
	if e.NotSent {
		msg += ". Nothing was written: run the command again once the API server answers"
	}
	if e.MayHaveLanded {
		if e.Op == "delete" {
			msg += ". The request may have reached the API server: the Application may be deleting; run the command again"
		} else {
			msg += ". The request may have reached the API server: the Application may have been written. Run the apply again: " +
				"it adopts an Application this provider wrote and could not record, and refuses any other"
		}
	}
	return msg
}

func (e *WriteError) Unwrap() error { return e.Err }

// ExistsError is a create of an Application that already exists and was not
// written by an earlier attempt of this provider.
type ExistsError struct {
	Namespace, Name string
	Managers        []string // field managers of the existing object
}

func (e *ExistsError) Error() string {
	msg := fmt.Sprintf("Application %s/%s already exists", e.Namespace, e.Name)
	if len(e.Managers) > 0 {
		msg += " (managed by " + strings.Join(e.Managers, ", ") + ")"
	}
	return msg + ". To manage it with this configuration, import it: `terraform import` / `tofu import` with the id \"" +
		e.Namespace + "/" + e.Name + "\", or an import block with that id or the identity {namespace, name}. " +
		"If another configuration manages it, give this one another name"
}

// ConflictError is a server-side apply refused because other field managers
// own fields this apply sets.
type ConflictError struct {
	Namespace, Name string
	Managers        []string // the other managers
	Fields          []string // the fields in conflict (paths, never values)
	Err             error
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("Application %s/%s: fields owned by another field manager (%s): %s. Set force_conflicts = true to take "+
		"them over, or remove them from this configuration", e.Namespace, e.Name, strings.Join(e.Managers, ", "), strings.Join(e.Fields, ", "))
}

func (e *ConflictError) Unwrap() error { return e.Err }

// conflictFrom turns a server-side apply conflict into a ConflictError, or
// returns nil. The API server's causes read
// `conflict with "manager" using deckhouse.io/v1alpha1: .spec.settings.x`.
func conflictFrom(namespace, name string, err error) *ConflictError {
	if !apierrors.IsConflict(err) {
		return nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	managers := map[string]bool{}
	var fields []string
	for _, c := range status.Status().Details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		if i := strings.Index(c.Message, `"`); i >= 0 {
			if j := strings.Index(c.Message[i+1:], `"`); j >= 0 {
				managers[c.Message[i+1:i+1+j]] = true
			}
		}
		if c.Field != "" {
			fields = append(fields, c.Field)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	sort.Strings(fields)
	return &ConflictError{Namespace: namespace, Name: name, Managers: slices.Sorted(maps.Keys(managers)), Fields: fields, Err: err}
}
