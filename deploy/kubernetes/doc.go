// Package kubernetes holds sqlgym's Kubernetes manifests (the YAML files
// beside this file: the reward server as a Deployment with its Service,
// probes, autoscaler and disruption budget, and the StatefulSet variant
// for per-pod episode routing; the Indexed Job that makes variant
// databases a shard per pod, and its merge Job) and the test that checks them against the
// Kubernetes API types with strict decoding, so a misspelt or misplaced
// field fails in CI instead of at kubectl apply. It has no Go code to
// import.
package kubernetes
