package faultproxy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// status is a Kubernetes metav1.Status, the body kube-apiserver sends with
// every error.
type status struct {
	Kind       string         `json:"kind"`
	APIVersion string         `json:"apiVersion"`
	Metadata   struct{}       `json:"metadata"`
	Status     string         `json:"status"`
	Message    string         `json:"message"`
	Reason     string         `json:"reason,omitempty"`
	Details    *statusDetails `json:"details,omitempty"`
	Code       int            `json:"code"`
}

type statusDetails struct {
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
}

// reasons are the metav1.StatusReason kube-apiserver gives each code.
var reasons = map[int]string{
	http.StatusBadRequest:            "BadRequest",
	http.StatusUnauthorized:          "Unauthorized",
	http.StatusForbidden:             "Forbidden",
	http.StatusNotFound:              "NotFound",
	http.StatusMethodNotAllowed:      "MethodNotAllowed",
	http.StatusNotAcceptable:         "NotAcceptable",
	http.StatusConflict:              "Conflict",
	http.StatusGone:                  "Expired",
	http.StatusRequestEntityTooLarge: "RequestEntityTooLarge",
	http.StatusUnsupportedMediaType:  "UnsupportedMediaType",
	http.StatusUnprocessableEntity:   "Invalid",
	http.StatusTooManyRequests:       "TooManyRequests",
	http.StatusInternalServerError:   "InternalError",
	http.StatusServiceUnavailable:    "ServiceUnavailable",
	http.StatusGatewayTimeout:        "Timeout",
}

func newStatus(code int, message string, retryAfter int) status {
	if message == "" {
		message = fmt.Sprintf("faultproxy: injected %d %s", code, http.StatusText(code))
	}
	s := status{
		Kind: "Status", APIVersion: "v1", Status: "Failure",
		Message: message, Reason: reasons[code], Code: code,
	}
	if retryAfter > 0 {
		s.Details = &statusDetails{RetryAfterSeconds: retryAfter}
	}
	return s
}

// writeStatus answers with code, an optional Retry-After header and a Status
// body.
func writeStatus(w http.ResponseWriter, code int, message string, retryAfter int) {
	body, _ := json.Marshal(newStatus(code, message, retryAfter))
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if retryAfter >= 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// errorEvent is the watch event kube-apiserver sends when a watch fails,
// with its newline.
func errorEvent(code int) []byte {
	message := fmt.Sprintf("faultproxy: injected watch error %d %s", code, http.StatusText(code))
	ev, _ := json.Marshal(struct {
		Type   string `json:"type"`
		Object status `json:"object"`
	}{"ERROR", newStatus(code, message, -1)})
	return append(ev, '\n')
}
