package dpclient

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// refreshStatusFields are the parts of an Application's status a refresh
// (of the resource or the data source) reads.
var refreshStatusFields = map[string]bool{
	"summary": true, "currentVersion": true, "urls": true, "conditions": true, "lastAppliedConfiguration": true,
}

// refreshView trims an Application held by a namespace snapshot to what
// refreshes read: of managedFields the entries of server-side apply (the
// owners of labels and annotations; controllers' update entries go), of the
// status refreshStatusFields. It changes obj in place and returns it.
func refreshView(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if md, ok := obj.Object["metadata"].(map[string]any); ok {
		if mfs, ok := md["managedFields"].([]any); ok {
			kept := mfs[:0]
			for _, mf := range mfs {
				if m, ok := mf.(map[string]any); ok && m["operation"] == string(metav1.ManagedFieldsOperationApply) {
					kept = append(kept, mf)
				}
			}
			clear(mfs[len(kept):])
			md["managedFields"] = kept
		}
	}
	if status, ok := obj.Object["status"].(map[string]any); ok {
		for k := range status {
			if !refreshStatusFields[k] {
				delete(status, k)
			}
		}
	}
	return obj
}
