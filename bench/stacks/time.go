// bench/stacks/time.go: times one (m, t, p) in Go with x/crypto/argon2,
// as a Go service hashes (a fresh salt, the PHC string), independently of
// pwtune and of its probes. Built by run.py in GOPATH mode.
//
//	time-go M_KIB T P WARMUP N
//
// Prints the N latencies in milliseconds on one line.
package main

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"
)

var sink string

func one(m, t, p int) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		os.Exit(1)
	}
	key := argon2.IDKey([]byte("bench-stacks-pw!"), salt, uint32(t),
		uint32(m), uint8(p), 32)
	b := base64.RawStdEncoding
	sink = fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=%d$%s$%s", m, t, p,
		b.EncodeToString(salt), b.EncodeToString(key))
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: time-go M_KIB T P WARMUP N")
		os.Exit(2)
	}
	var v [5]int
	for i := range v {
		x, err := strconv.Atoi(os.Args[i+1])
		if err != nil {
			os.Exit(2)
		}
		v[i] = x
	}
	for i := 0; i < v[3]; i++ {
		one(v[0], v[1], v[2])
	}
	out := make([]string, 0, v[4])
	for i := 0; i < v[4]; i++ {
		a := time.Now()
		one(v[0], v[1], v[2])
		out = append(out, fmt.Sprintf("%.3f",
			float64(time.Since(a).Nanoseconds())/1e6))
	}
	fmt.Println(strings.Join(out, " "))
}
