package steps

import (
	"reflect"
	"sort"
	"sync"

	"github.com/cucumber/godog"
)

// binding is the step registration of one area (one feature file's steps, or the shared
// vocabulary).
type binding struct {
	area string
	bind func(*godog.ScenarioContext)
}

// bindings holds every area's step registration. Each area file adds its own from its init
// (bindSteps), so adding an area edits no central list; it is written only while the package
// initialises and read-only afterwards.
var bindings []binding

// bindSteps registers the steps of area; an area file calls it from its init:
// `func init() { bindSteps("server-tools", registerServerToolsSteps) }`. An area registered twice
// is a programming error.
func bindSteps(area string, bind func(*godog.ScenarioContext)) {
	for _, b := range bindings {
		if b.area == area {
			panic("steps: area " + area + " registered twice")
		}
	}
	bindings = append(bindings, binding{area: area, bind: bind})
}

// sortedBindings is bindings in area order. The order files initialise in is not part of the
// contract, and godog reports a step that two areas match as ambiguous whatever the order; the
// sort only makes runs deterministic.
var sortedBindings = sync.OnceValue(func() []binding {
	out := append([]binding(nil), bindings...)
	sort.Slice(out, func(i, j int) bool { return out[i].area < out[j].area })
	return out
})

// BindAll binds the steps of every area (each registered by its own file with bindSteps) to
// the scenario context sc. The runner calls it once per scenario context, from its
// ScenarioInitializer.
func BindAll(sc *godog.ScenarioContext) {
	for _, b := range sortedBindings() {
		b.bind(sc)
	}
}

// stateOf returns the scenario's state of type T, made by mk the first time a step of the
// scenario asks for it: each area keeps what its When-steps leave for its Then-steps in a type
// of its own, declared with its accessor in the area's own file, so adding an area adds no
// field to world.
func stateOf[T any](w *World, mk func() *T) *T {
	key := reflect.TypeFor[T]()
	w.statesMu.Lock()
	defer w.statesMu.Unlock()
	if v, ok := w.states[key]; ok {
		return v.(*T)
	}
	if w.states == nil {
		w.states = map[reflect.Type]any{}
	}
	v := mk()
	w.states[key] = v
	return v
}

// stopper is a scenario state that holds something to release when the scenario ends (a
// request left in flight); the runner stops each one after the scenario (StopStates).
type stopper interface{ stop() }

// StopStates stops every state of w that holds something (see stopper).
func (w *World) StopStates() {
	w.statesMu.Lock()
	states := make([]any, 0, len(w.states))
	for _, v := range w.states {
		states = append(states, v)
	}
	w.statesMu.Unlock()
	for _, v := range states {
		if s, ok := v.(stopper); ok {
			s.stop()
		}
	}
}
