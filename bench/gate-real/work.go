// A workload for measuring diff's gate on real recordings (bench/gate-real/run.sh): functions of
// different kinds of work (integer loops, sorting, formatting, maps, allocation, goroutines that
// contend on a lock and a channel), profiled by runtime/pprof as CPU, heap, allocs, block and
// mutex profiles. `work DIR ROUNDS [FACTOR]` writes DIR/{cpu,heap,allocs,block,mutex}.pb.gz;
// render does FACTOR times its work, allocation and lock holding (the regression to catch).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

var sink uint64
var kept [][]byte

//go:noinline
func mix(n int) uint64 {
	x := uint64(0)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + uint64(i)
	}
	return x
}

//go:noinline
func parse() {
	words := strings.Fields(strings.Repeat("alpha beta gamma delta ", 2000))
	counts := map[string]int{}
	for _, w := range words {
		counts[w]++
	}
	sink += uint64(len(counts)) + mix(300000)
}

//go:noinline
func sortValues() {
	values := make([]int, 20000)
	for i := range values {
		values[i] = int(mix(i%40) ^ uint64(i)*2654435761)
	}
	sort.Ints(values)
	sink += uint64(values[len(values)/2])
}

//go:noinline
func render(factor float64) {
	var b strings.Builder
	for i := 0; i < int(4000*factor); i++ {
		b.WriteString(fmt.Sprintf("%d: %f row\n", i, float64(i)*0.5))
	}
	kept = append(kept, []byte(b.String()[:1024]))
	sink += uint64(b.Len()) + mix(int(200000*factor))
}

//go:noinline
func compress() {
	buffer := make([]byte, 65536)
	for i := range buffer {
		buffer[i] = byte(i / 64)
	}
	runs := 0
	for round := 0; round < 10; round++ {
		for i := 1; i < len(buffer); i++ {
			if buffer[i] != buffer[i-1] {
				runs++
			}
		}
	}
	sink += uint64(runs)
}

//go:noinline
func allocate() {
	for i := 0; i < 2000; i++ {
		block := make([]byte, 64+(i*37)%4000)
		if i%100 == 0 {
			kept = append(kept, block)
		}
	}
	if len(kept) > 400 {
		kept = kept[200:]
	}
}

// contend runs workers that take one lock and pass through one channel, holding the lock
// `hold` longer in render's share, so that block and mutex profiles have stacks to weigh.
//
//go:noinline
func contend(factor float64) {
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if w%2 == 0 {
					lockForRender(&mu, factor)
				} else {
					lockForIndex(&mu)
				}
			}
			done <- struct{}{}
		}(w)
	}
	for w := 0; w < 4; w++ {
		<-done
	}
	wg.Wait()
}

//go:noinline
func lockForRender(mu *sync.Mutex, factor float64) {
	mu.Lock()
	sink += mix(int(20000 * factor))
	mu.Unlock()
}

//go:noinline
func lockForIndex(mu *sync.Mutex) {
	mu.Lock()
	sink += mix(20000)
	mu.Unlock()
}

func write(dir, name string, profile func(f *os.File) error) {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		panic(err)
	}
	if err := profile(f); err != nil {
		panic(err)
	}
	f.Close()
}

func main() {
	dir := os.Args[1]
	rounds, _ := strconv.Atoi(os.Args[2])
	factor := 1.0
	if len(os.Args) > 3 {
		factor, _ = strconv.ParseFloat(os.Args[3], 64)
	}
	runtime.SetBlockProfileRate(10000)
	runtime.SetMutexProfileFraction(5)
	cpu, err := os.Create(filepath.Join(dir, "cpu.pb.gz"))
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(cpu)
	start := time.Now()
	for r := 0; r < rounds; r++ {
		parse()
		sortValues()
		render(factor)
		compress()
		allocate()
		contend(factor)
	}
	pprof.StopCPUProfile()
	cpu.Close()
	_ = start
	runtime.GC()
	for _, kind := range []string{"heap", "allocs", "block", "mutex"} {
		write(dir, kind+".pb.gz", func(f *os.File) error { return pprof.Lookup(kind).WriteTo(f, 0) })
	}
}
