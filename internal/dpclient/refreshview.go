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
// owners of labels and annotations) and the update entries that own
// settings (kubectl create or edit, the DP web interface: the refresh names
// them), while controllers' update entries of the status go; of the status
// refreshStatusFields. It changes obj in place and returns it.
func refreshView(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if md, ok := obj.Object["metadata"].(map[string]any); ok {
		if mfs, ok := md["managedFields"].([]any); ok {
			kept := mfs[:0]
			for _, mf := range mfs {
				if m, ok := mf.(map[string]any); ok && (m["operation"] == string(metav1.ManagedFieldsOperationApply) || ownsSettings(m)) {
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

// ownsSettings reports whether a managedFields entry (as JSON) owns a field
// of spec.settings.
func ownsSettings(entry map[string]any) bool {
	fields, _ := entry["fieldsV1"].(map[string]any)
	spec, _ := fields["f:spec"].(map[string]any)
	_, ok := spec["f:settings"]
	return ok
}
