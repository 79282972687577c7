package kubernetes

import (
	"bytes"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	rootcmd "github.com/sqlgym/sqlgym/internal/cmd/root"
	"github.com/sqlgym/sqlgym/serve"
	"github.com/sqlgym/sqlgym/shopdb"
)

// manifests are every object in the YAML files here, strictly decoded.
type manifests struct {
	deployments  []*appsv1.Deployment
	statefulsets []*appsv1.StatefulSet
	services     []*corev1.Service
	configmaps   []*corev1.ConfigMap
	hpas         []*autoscalingv2.HorizontalPodAutoscaler
	pdbs         []*policyv1.PodDisruptionBudget
	jobs         []*batchv1.Job
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// decode reads one YAML document into the API type its apiVersion and
// kind name. Strict: a field the type does not have (a typo, a field at
// the wrong level) or a duplicate field is an error.
func (m *manifests) decode(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "apps/v1 Deployment":
		obj = add(&m.deployments)
	case "apps/v1 StatefulSet":
		obj = add(&m.statefulsets)
	case "v1 Service":
		obj = add(&m.services)
	case "v1 ConfigMap":
		obj = add(&m.configmaps)
	case "autoscaling/v2 HorizontalPodAutoscaler":
		obj = add(&m.hpas)
	case "policy/v1 PodDisruptionBudget":
		obj = add(&m.pdbs)
	case "batch/v1 Job":
		obj = add(&m.jobs)
	default:
		return fmt.Errorf("apiVersion %q kind %q: not a type this test knows; add it here", tm.APIVersion, tm.Kind)
	}
	return yaml.UnmarshalStrict(doc, obj)
}

// add appends a new, empty object to list and returns it to decode into.
func add[T any](list *[]*T) *T {
	o := new(T)
	*list = append(*list, o)
	return o
}

func load(t *testing.T) *manifests {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	m := &manifests{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range docSep.Split(string(raw), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			if err := m.decode([]byte(doc)); err != nil {
				t.Errorf("%s, document %d: %v", f, i+1, err)
			}
		}
	}
	return m
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// Strict decoding catches what kubectl would reject or silently drop.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	m := &manifests{}
	bad := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  replicas: 1\n  readinesProbe: {}\n"
	if err := m.decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "readinesProbe") {
		t.Fatalf("a misspelt field was accepted: %v", err)
	}
	if err := m.decode([]byte("apiVersion: apps/v1beta1\nkind: Deployment\n")); err == nil {
		t.Fatal("an unknown apiVersion was accepted")
	}
}

func TestManifestsDecodeStrictly(t *testing.T) {
	m := load(t)
	if len(m.deployments) != 1 || len(m.statefulsets) != 1 || len(m.hpas) != 1 || len(m.services) != 2 || len(m.pdbs) != 1 || len(m.configmaps) != 1 {
		t.Fatalf("objects: %d deployments, %d statefulsets, %d services, %d HPAs, %d PDBs, %d config maps",
			len(m.deployments), len(m.statefulsets), len(m.services), len(m.hpas), len(m.pdbs), len(m.configmaps))
	}
}

// The pods run `sqlgym serve` with flags the real command accepts, are
// probed on /healthz (liveness) and /readyz (readiness) on a port they
// declare, request CPU and memory, and run as the image's non-root user.
func TestPodSpecsMatchTheServer(t *testing.T) {
	m := load(t)
	pods := map[string]corev1.PodTemplateSpec{}
	for _, d := range m.deployments {
		pods["Deployment "+d.Name] = d.Spec.Template
	}
	for _, s := range m.statefulsets {
		pods["StatefulSet "+s.Name] = s.Spec.Template
	}
	uid := dockerUser(t)
	for name, p := range pods {
		if len(p.Spec.Containers) != 1 {
			t.Fatalf("%s: %d containers", name, len(p.Spec.Containers))
		}
		c := p.Spec.Containers[0]
		checkServeArgs(t, name, c.Args)
		ports := map[string]int32{}
		for _, cp := range c.Ports {
			ports[cp.Name] = cp.ContainerPort
		}
		if !slices.Contains(c.Args, fmt.Sprintf("--addr=0.0.0.0:%d", ports["http"])) {
			t.Errorf("%s: --addr does not listen on the container port %d on all interfaces: %v", name, ports["http"], c.Args)
		}
		for probe, want := range map[*corev1.Probe]string{c.LivenessProbe: "/healthz", c.ReadinessProbe: "/readyz", c.StartupProbe: "/healthz"} {
			if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != want || ports[probe.HTTPGet.Port.StrVal] == 0 {
				t.Errorf("%s: a probe is not GET %s on a declared port: %+v", name, want, probe)
			}
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
			t.Errorf("%s: no CPU or memory request", name)
		}
		sc := p.Spec.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != uid {
			t.Errorf("%s: not run as the image's non-root user %d", name, uid)
		}
		// The grace period covers the unready delay and the drain.
		if g := p.Spec.TerminationGracePeriodSeconds; g == nil || *g < 65 {
			t.Errorf("%s: terminationGracePeriodSeconds %v is shorter than --unready-delay plus --drain", name, g)
		}
	}
}

// checkServeArgs parses the container's arguments with the real command.
func checkServeArgs(t *testing.T, name string, args []string) {
	t.Helper()
	root := rootcmd.NewRoot(cmdkit.IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != "serve" {
		t.Fatalf("%s: args %v are not a serve command: %v", name, args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("%s: sqlgym serve refuses the args %v: %v", name, args, err)
	}
	if f := cmd.Flags().Lookup("readiness-probe"); f != nil {
		t.Errorf("unexpected flag %s", f.Name)
	}
}

// dockerUser is the UID the Dockerfile's runtime stage runs as.
func dockerUser(t *testing.T) int64 {
	t.Helper()
	raw, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^USER\s+(\d+)`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("the Dockerfile sets no numeric USER")
	}
	var uid int64
	fmt.Sscan(string(m[1]), &uid)
	return uid
}

// Services select the pods, the StatefulSet's governing Service is
// headless, the HPA scales the Deployment on a metric the server really
// exports, and the adapter rule serves that metric.
func TestObjectsReferToEachOther(t *testing.T) {
	m := load(t)
	labelsOf := map[string]map[string]string{}
	for _, d := range m.deployments {
		labelsOf[d.Name] = d.Spec.Template.Labels
		if !matches(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("Deployment %s: its selector does not match its pods", d.Name)
		}
	}
	for _, s := range m.statefulsets {
		labelsOf[s.Name] = s.Spec.Template.Labels
		var gov *corev1.Service
		for _, svc := range m.services {
			if svc.Name == s.Spec.ServiceName {
				gov = svc
			}
		}
		if gov == nil || gov.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("StatefulSet %s: its serviceName %q is not a headless Service here", s.Name, s.Spec.ServiceName)
		}
		// A pod's name is its replica id, the prefix of its episode ids.
		if _, err := serve.ParseReplicaID(fmt.Sprintf("%s-%d", s.Name, *s.Spec.Replicas-1)); err != nil {
			t.Errorf("StatefulSet %s: its pod names are not valid replica ids: %v", s.Name, err)
		}
	}
	for _, svc := range m.services {
		found := false
		for _, l := range labelsOf {
			found = found || matches(svc.Spec.Selector, l)
		}
		if !found {
			t.Errorf("Service %s selects no pods of these manifests", svc.Name)
		}
	}
	for _, pdb := range m.pdbs {
		if l, ok := labelsOf["sqlgym"]; !ok || !matches(pdb.Spec.Selector.MatchLabels, l) {
			t.Errorf("PodDisruptionBudget %s does not select the Deployment's pods", pdb.Name)
		}
	}

	exported := exportedMetrics(t)
	hpa := m.hpas[0]
	if hpa.Spec.ScaleTargetRef.Kind != "Deployment" || labelsOf[hpa.Spec.ScaleTargetRef.Name] == nil {
		t.Errorf("HPA scales %s %s, not a Deployment here", hpa.Spec.ScaleTargetRef.Kind, hpa.Spec.ScaleTargetRef.Name)
	}
	if len(hpa.Spec.Metrics) != 1 || hpa.Spec.Metrics[0].Type != autoscalingv2.PodsMetricSourceType {
		t.Fatalf("HPA metrics %+v: want one Pods metric", hpa.Spec.Metrics)
	}
	metric := hpa.Spec.Metrics[0].Pods.Metric.Name
	if !exported[metric] {
		t.Errorf("HPA scales on %s, which sqlgym serve does not export as a gauge", metric)
	}
	rules := m.configmaps[0].Data["config.yaml"]
	var parsed struct {
		Rules []struct {
			SeriesQuery string `json:"seriesQuery"`
			Name        struct {
				As string `json:"as"`
			} `json:"name"`
			MetricsQuery string `json:"metricsQuery"`
		} `json:"rules"`
	}
	if err := yaml.Unmarshal([]byte(rules), &parsed); err != nil || len(parsed.Rules) != 1 ||
		parsed.Rules[0].Name.As != metric || !strings.HasPrefix(parsed.Rules[0].SeriesQuery, metric+"{") {
		t.Errorf("the prometheus-adapter rule does not serve %s: %v %+v", metric, err, parsed)
	}
}

func matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// exportedMetrics are the gauges a real server's /metrics lists.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tasks, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(serve.Config{DBs: cat, Tasks: tasks})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	out := map[string]bool{}
	for _, l := range bytes.Split(rec.Body.Bytes(), []byte("\n")) {
		if f := strings.Fields(string(l)); len(f) == 4 && f[1] == "TYPE" && f[3] == "gauge" {
			out[f[2]] = true
		}
	}
	return out
}
