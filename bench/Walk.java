import java.util.SplittableRandom;

/**
 * The workload of bench/run.sh's JFR recording: THREADS threads (default 8) for SECONDS seconds
 * (default 20) each walk random call paths 10 to 60 deep through four methods, at random lines,
 * and allocate at their leaves, so that samples rarely share a stack, as in a large program.
 */
public class Walk {
    static volatile long sink;

    static long a(SplittableRandom r, int depth) {
        if (depth == 0) return leaf(r);
        return r.nextBoolean() ? b(r, depth - 1) + 1 : c(r, depth - 1) + 2;
    }

    static long b(SplittableRandom r, int depth) {
        if (depth == 0) return leaf(r);
        return r.nextBoolean() ? c(r, depth - 1) + 3 : d(r, depth - 1) + 4;
    }

    static long c(SplittableRandom r, int depth) {
        if (depth == 0) return leaf(r);
        return r.nextBoolean() ? d(r, depth - 1) + 5 : a(r, depth - 1) + 6;
    }

    static long d(SplittableRandom r, int depth) {
        if (depth == 0) return leaf(r);
        return r.nextBoolean() ? a(r, depth - 1) + 7 : b(r, depth - 1) + 8;
    }

    static long leaf(SplittableRandom r) {
        long[] block = new long[16 + r.nextInt(256)];
        long x = 0;
        for (int i = 0; i < 20_000; i++) {
            x += (i * 31L) ^ (x >>> 3) ^ block.length;
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        long end = System.nanoTime() + (args.length > 1 ? Long.parseLong(args[1]) : 20) * 1_000_000_000L;
        Thread[] all = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            long seed = t;
            all[t] = new Thread(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                while (System.nanoTime() < end) {
                    sink += a(r, 10 + r.nextInt(51));
                }
            }, "walker-" + t);
            all[t].start();
        }
        for (Thread t : all) {
            t.join();
        }
    }
}
