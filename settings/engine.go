package settings

// Engine is how a thread issues its operations (--engine).
type Engine string

// The engines.
const (
	Sync    Engine = "sync"     // one pread/pwrite at a time (queue depth 1), as IOzone and fio's psync
	IOUring Engine = "io_uring" // up to --iodepth operations in flight on the thread's own ring
)

// ParseEngine reads --engine.
func ParseEngine(text string) (Engine, error) { return parseWord("engine", text, Sync, IOUring) }

func (e Engine) String() string { return string(e) }

// Check says whether e is an engine this build has, as its parse would.
func (e Engine) Check() error { _, err := ParseEngine(string(e)); return err }
