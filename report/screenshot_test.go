package report

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/testenv"
)

// chromium finds the headless browser, skipping the test when it is absent,
// or failing when SQLGYM_REQUIRE_TOOLS=1 (CI installs Debian's chromium).
func chromium(t *testing.T) string {
	t.Helper()
	return testenv.Tool(t, "chromium", "chromium-browser")
}

// TestHTMLRendersCharts opens the report page in headless Chromium and
// checks the headline bars are drawn: the top of the screenshot must hold
// a solid block of BarColor.
func TestHTMLRendersCharts(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := HTML(f, fixtureRun(t, "screenshot-run", 0)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--force-color-profile=srgb", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1200,1600",
		"file://"+page)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	t.Logf("chromium took %v", time.Since(start).Round(time.Millisecond))
	// SQLGYM_SCREENSHOT_DIR keeps the page and the picture for a person to
	// look at.
	if keep := os.Getenv("SQLGYM_SCREENSHOT_DIR"); keep != "" {
		for _, p := range []string{page, shot} {
			if b, err := os.ReadFile(p); err == nil {
				os.WriteFile(filepath.Join(keep, filepath.Base(p)), b, 0o644)
			}
		}
	}
	pf, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	defer pf.Close()
	img, err := png.Decode(pf)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1600 {
		t.Fatalf("screenshot is %v, want 1200x1600", b)
	}
	want := hexColour(t, BarColor)
	// The headline chart comes right after a three-row table, well inside
	// the first 700 pixels; its three bars hold thousands of bar pixels.
	bars, top := countColour(img, image.Rect(0, 0, 1200, 700), want)
	if bars < 4000 {
		t.Fatalf("only %d pixels of the bar colour %s in the chart region: the bars were not drawn", bars, BarColor)
	}
	// Nothing else on the page uses the bar colour.
	if rest, _ := countColour(img, image.Rect(0, 700, 1200, 1600), want); rest != 0 {
		t.Fatalf("%d bar-colour pixels below the chart", rest)
	}
	t.Logf("%d bar pixels, first at y=%d", bars, top)
}

func hexColour(t *testing.T, s string) [3]uint8 {
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		t.Fatal(err)
	}
	return [3]uint8{uint8(v >> 16), uint8(v >> 8), uint8(v)}
}

// countColour counts pixels within 3 of c per channel and returns the
// first row holding one.
func countColour(img image.Image, r image.Rectangle, c [3]uint8) (n, firstY int) {
	firstY = -1
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if close8(cr, c[0]) && close8(cg, c[1]) && close8(cb, c[2]) {
				n++
				if firstY < 0 {
					firstY = y
				}
			}
		}
	}
	return n, firstY
}

func close8(v uint32, want uint8) bool {
	d := int(v>>8) - int(want)
	return d >= -3 && d <= 3
}
