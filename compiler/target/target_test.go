package target

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

type nameBuilder string

func (b nameBuilder) Build(*ir.Operation) ([]byte, error) { return []byte(b), nil }

// withTargets runs f with the registry holding only ts.
func withTargets(t *testing.T, ts []Target, f func()) {
	t.Helper()
	mu.Lock()
	saved := targets
	targets = nil
	mu.Unlock()
	defer func() {
		mu.Lock()
		targets = saved
		mu.Unlock()
	}()
	for _, x := range ts {
		Register(x)
	}
	f()
}

func fake(name, device string, aliases ...string) Target {
	return Target{
		Name: name, Aliases: aliases, Device: device,
		DefaultExecutableTarget: func() *hal.ExecutableTargetAttr {
			return &hal.ExecutableTargetAttr{Backend: name, Format: name + "-fb"}
		},
		NewBuilder: func(env Env) Builder { return nameBuilder(name + ":" + env.Flags[name+"-path"]) },
		Flags:      []Flag{{Name: name + "-path", Aliases: []string{name + "-old-path"}, Value: "<path>", Help: "tool"}},
	}
}

func TestRegistry(t *testing.T) {
	cpu := fake("cpu", "local")
	cpu.Fallback = true
	interp := fake("interp", "local")
	interp.Explicit = true // on the local device only when named
	withTargets(t, []Target{fake("gpu", "gpudev", "gpu-old"), cpu, fake("cpu2", "local"), interp}, func() {
		if got := strings.Join(Backends(), ","); got != "cpu,cpu2,gpu,interp" {
			t.Errorf("Backends() = %s", got)
		}
		if got := strings.Join(Devices(), ","); got != "gpudev,local" {
			t.Errorf("Devices() = %s", got)
		}
		if got := strings.Join(DeviceBackends("local"), ","); got != "cpu,cpu2" {
			t.Errorf("DeviceBackends(local) = %s", got)
		}
		for _, c := range []struct{ name, device string }{{"gpu", "gpudev"}, {"gpu-old", "gpudev"}, {"cpu", "local"}, {"interp", "local"}, {"nope", ""}} {
			d, ok := BackendDevice(c.name)
			if d != c.device || ok != (c.device != "") {
				t.Errorf("BackendDevice(%s) = %s, %v; want %s", c.name, d, ok, c.device)
			}
		}
		a, _ := DefaultExecutableTarget("gpu-old")
		b, _ := DefaultExecutableTarget("gpu-old")
		if a == b || a.Backend != "gpu" {
			t.Errorf("DefaultExecutableTarget(gpu-old) = %v, %v: want fresh copies of the gpu target", a, b)
		}
		if f, err := Fallback(); err != nil || f.Backend != "cpu" {
			t.Errorf("Fallback() = %v, %v", f, err)
		}
		if tg, f := FindFlag("gpu-old-path"); tg == nil || tg.Name != "gpu" || f.Name != "gpu-path" {
			t.Errorf("FindFlag(gpu-old-path) = %v, %v", tg, f)
		}
		if tg, f := FindFlag("gpu"); tg != nil || f != nil {
			t.Errorf("FindFlag(gpu) = %v, %v; want none", tg, f)
		}
		bs := Builders(Env{Flags: map[string]string{"gpu-path": "/x"}})
		for name, want := range map[string]string{"gpu": "gpu:/x", "gpu-old": "gpu:/x", "cpu": "cpu:"} {
			got, _ := bs[name].Build(nil)
			if string(got) != want {
				t.Errorf("Builders()[%s] built %q, want %q", name, got, want)
			}
		}
	})
	withTargets(t, []Target{fake("gpu", "gpudev")}, func() {
		if _, err := Fallback(); err == nil || !strings.Contains(err.Error(), "targets linked: gpu") {
			t.Errorf("Fallback() without a fallback target = %v", err)
		}
	})
}

func TestRegisterRejects(t *testing.T) {
	dupFlag := fake("other", "d")
	dupFlag.Flags = []Flag{{Name: "cpu-old-path"}}
	noBuilder := fake("nb", "d")
	noBuilder.NewBuilder = nil
	for _, c := range []struct {
		name string
		t    Target
		want string
	}{
		{"duplicate name", fake("cpu", "local"), `backend "cpu" registered twice`},
		{"alias taken", fake("x", "d", "cpu"), `backend "cpu" registered twice`},
		{"flag taken", dupFlag, "flag --cpu-old-path of other is already registered by cpu"},
		{"no builder", noBuilder, "needs a name, a device"},
	} {
		withTargets(t, []Target{fake("cpu", "local")}, func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Errorf("%s: Register panicked with %v, want %q", c.name, r, c.want)
				}
			}()
			Register(c.t)
		})
	}
}
