// Package application is the deckhouse_application resource and everything
// only it needs: the table of attribute facts from which its schema, model,
// change checks and defaults derive; its plan (DP's checks on the settings,
// run at plan and again at apply, with the previous document of the update
// rules, grant defaults and a same-run bootstrap of the package); its create,
// update, refresh and delete, with the server-side apply body, the
// ownership of settings keys and the typed private state that records which
// Application the state is; its import, state upgrades, move from
// kubernetes_manifest and list resource; the redaction of sensitive
// settings values in DP's texts; and its answers to the protocol shortcuts
// of package fastpath.
package application
