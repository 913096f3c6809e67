// Package outage decides, once for one Kubernetes client, that its API
// server does not answer. Its transport guard trips when a request ends at
// its deadline with no answer, when connections have been refused for
// RefusedWindow, or when the configuration cannot reach the server; from
// then on it holds back every request (NotSentError) and ends the requests
// still waiting (CutShortError). It knows nothing of the objects the client
// reads and imports only the standard library.
package outage
