// engine/probes/go/probe.go: the stack probe of Go (docs/STACKS.md).
//
//	probe-go WARMUP M_KIB:T:P:N...
//
// argon2.IDKey(pw, salt, t, m, p, 32) from golang.org/x/crypto/argon2 (its
// own SIMD code), with a fresh 16-byte salt from crypto/rand and the PHC
// string a service stores: the go stack. Built in GOPATH mode against
// Debian's golang-golang-x-crypto-dev.
//
// Exit 0 done, 1 a hash failed, 2 bad usage.
package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"
)

// Set at build time (-ldflags -X) from Debian's package version.
var libVersion = "?"

const pw = "correct-horse-16"

type point struct {
	m, t, p, n uint64
}

func usage(why string) {
	fmt.Fprintf(os.Stderr, "probe-go: %s\nusage: probe-go WARMUP M_KIB:T:P:N...\n", why)
	os.Exit(2)
}

func line(v interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		os.Exit(1)
	}
	os.Stdout.Write(append(b, '\n'))
}

var decimal = regexp.MustCompile(`^[0-9]{1,10}$`)

func countIn(s string, lo, hi uint64) (uint64, bool) {
	if !decimal.MatchString(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil && v >= lo && v <= hi
}

func hash(pt point) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		line(map[string]string{"error": "crypto/rand: " + err.Error()})
		os.Exit(1)
	}
	key := argon2.IDKey([]byte(pw), salt, uint32(pt.t), uint32(pt.m),
		uint8(pt.p), 32)
	enc := base64.RawStdEncoding
	_ = fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version,
		pt.m, pt.t, pt.p, enc.EncodeToString(salt), enc.EncodeToString(key))
}

func main() {
	args := os.Args[1:]
	if len(args) < 2 {
		usage("too few arguments")
	}
	warmup, ok := countIn(args[0], 0, 100000)
	if !ok {
		usage("WARMUP is a count from 0 to 100000")
	}
	var pts []point
	for _, a := range args[1:] {
		f := strings.Split(a, ":")
		if len(f) != 4 {
			usage("a POINT is M_KIB:T:P:N")
		}
		m, ok1 := countIn(f[0], 8, 4194304)
		t, ok2 := countIn(f[1], 1, 65535)
		p, ok3 := countIn(f[2], 1, 255)
		n, ok4 := countIn(f[3], 1, 100000)
		if !ok1 || !ok2 || !ok3 || !ok4 || m < 8*p {
			usage("bad POINT " + a + " (M_KIB:T:P:N, 8 KiB a lane at least)")
		}
		pts = append(pts, point{m, t, p, n})
	}

	line(struct {
		Probe   string `json:"probe"`
		Runtime string `json:"runtime"`
		Library string `json:"library"`
	}{"go", "Go " + strings.TrimPrefix(runtime.Version(), "go"),
		"golang.org/x/crypto/argon2 " + libVersion})
	for _, pt := range pts {
		// A collection first: a service hashes at one size, and the
		// heap the last size left made the first timed hash here 2.5
		// to 8 times the others, warm-ups or not (docs/BENCHMARKS.md).
		runtime.GC()
		// Untimed, at each point's m and p, two passes at most.
		warm := pt
		if warm.t > 2 {
			warm.t = 2
		}
		for i := uint64(0); i < warmup; i++ {
			hash(warm)
		}
		samples := make([]float64, 0, pt.n)
		for k := uint64(0); k < pt.n; k++ {
			a := time.Now() // carries the monotonic clock
			hash(pt)
			ns := time.Since(a).Nanoseconds()
			samples = append(samples, float64(ns/1000)/1000)
		}
		line(struct {
			M       uint64    `json:"m_kib"`
			T       uint64    `json:"t"`
			P       uint64    `json:"p"`
			Samples []float64 `json:"samples_ms"`
		}{pt.m, pt.t, pt.p, samples})
	}
}
