package recovery

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Liveness is what recovery may assume about a sidecar's owner.
type Liveness int

// Liveness outcomes.
const (
	// OwnerAlive: the owner is (or may be) running and its lease holds;
	// its intent is an in-flight write, never touched.
	OwnerAlive Liveness = iota + 1
	// OwnerDead: provably gone (same machine and boot, process or
	// instance no longer exists); recovery may act directly.
	OwnerDead
	// OwnerExpired: liveness is unknowable (another machine) and the
	// lease ran out; recovery must fence before acting.
	OwnerExpired
)

var (
	liveMu        sync.Mutex
	liveInstances = map[string]map[string]bool{} // instance → in-flight operation ids
	hostName, _   = os.Hostname()
	bootID        = readBootID()
)

func readBootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

func newInstance() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	liveMu.Lock()
	liveInstances[id] = map[string]bool{}
	liveMu.Unlock()
	return id
}

// setInFlight marks (or unmarks) an operation of a live instance as in
// flight: only an in-flight intent of a live instance is a live writer.
func setInFlight(instance, op string, on bool) {
	liveMu.Lock()
	defer liveMu.Unlock()
	if ops := liveInstances[instance]; ops != nil {
		if on {
			ops[op] = true
		} else {
			delete(ops, op)
		}
	}
}

func endInstance(id string) {
	liveMu.Lock()
	delete(liveInstances, id)
	liveMu.Unlock()
}

// instanceState reports whether the instance is live in this process
// and whether op is in flight in it.
func instanceState(id, op string) (live, inFlight bool) {
	liveMu.Lock()
	defer liveMu.Unlock()
	ops, ok := liveInstances[id]
	return ok, ok && ops[op]
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// liveness decides what may be assumed about the owner o of operation op
// at time now.
func liveness(o Owner, op string, now time.Time) Liveness {
	if live, inFlight := instanceState(o.Instance, op); live {
		if inFlight {
			return OwnerAlive
		}
		return OwnerDead // our own process gave the operation up
	}
	if o.Host == hostName && o.BootID == bootID && bootID != "unknown" {
		if o.PID == os.Getpid() {
			return OwnerDead // same process, instance closed or crashed
		}
		if !processAlive(o.PID) {
			return OwnerDead
		}
		// alive (or its pid reused): trust it until its lease ends
	}
	if now.Before(o.LeaseExpiry) {
		return OwnerAlive
	}
	return OwnerExpired
}
