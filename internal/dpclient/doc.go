// Package dpclient is the provider's Kubernetes I/O for Deckhouse Platform
// objects, on client-go only: the connection configuration, the per-provider
// cache of cluster reads, the namespace reads that answer refreshes, and the
// server-side apply, wait and delete of Applications.
//
// # An API server that does not answer
//
// Each Client decides at most once, for the life of the process, that its
// API server does not answer (package outage, which imports only the
// standard library). Its transport decides so when a request ends at its
// deadline with no response at all, when connections have been refused for
// outage.RefusedWindow (longer than a restart takes), or when the
// configuration cannot reach the server (a host name that does not resolve,
// a certificate that does not verify). From then on the requests still
// waiting end with that outage, and every new request fails at once without
// being sent (NotSentError): a run against a hung server costs one request
// deadline, not one per read. Answers never count, however slow or whatever
// their status: a 429 or a 5xx is the server talking, and is retried.
//
// # Writes
//
// Client.Write is the one write protocol of Applications: the claim of a
// create's namespace/name in this process, the existence check, the
// server-side apply with retries, the wait, and the pending-create mark,
// with an Outcome (NotSent, Rejected, MayHaveLanded, Applied) that says what
// the cluster may hold. Errors are classified as client-go's retries judge
// them (Classify, classify.go): what may have landed is a request sent
// without an answer or answered 500, 502, 503 or 504; a refused connection,
// a name that does not resolve, a failed TLS handshake and a request the outage
// held back never sent anything.
//
// # Waits
//
// The waits of a Client (DP's verdict after a write, the end of a deletion
// its finalizers hold) share one watch of Applications per namespace
// (watchhub.go), started from the resourceVersion the waiter's own write
// returned: a wait sends no request of its own, and an apply or a destroy of
// N Applications costs one watch per namespace, not N. The DELETE's answer
// says whether the Application is gone or which version the finalizers hold.
//
// It imports nothing from Terraform: the framework adapter in
// internal/provider turns its results and errors into diagnostics.
package dpclient
