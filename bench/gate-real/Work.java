// A workload for measuring diff's gate on real recordings (bench/gate-real/run.sh): methods of
// different kinds of work (streams with lambdas, sorting, formatting, maps, allocation), recorded
// by JFR's execution and allocation samples. `java Work.java ROUNDS [FACTOR]`: render does FACTOR
// times its work and allocation (the regression to catch).
import java.util.*;
import java.util.stream.*;

public class Work {
    static long sink;
    static List<byte[]> kept = new ArrayList<>();

    static long mix(int n) {
        long x = 0;
        for (int i = 0; i < n; i++) x = x * 6364136223846793005L + i;
        return x;
    }

    static void parse() {
        String text = "alpha beta gamma delta ".repeat(2000);
        Map<String, Long> counts = Arrays.stream(text.split(" ")).collect(Collectors.groupingBy(w -> w, Collectors.counting()));
        sink += counts.size() + mix(300000);
    }

    static void sortValues() {
        int[] values = IntStream.range(0, 20000).map(i -> (int) (mix(i % 40) ^ i * 2654435761L)).toArray();
        Arrays.sort(values);
        sink += values[values.length / 2];
    }

    static void render(double factor) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < (int) (4000 * factor); i++) b.append(String.format("%d: %f row%n", i, i * 0.5));
        kept.add(b.substring(0, 1024).getBytes());
        sink += b.length() + mix((int) (200000 * factor));
    }

    static void compress() {
        byte[] buffer = new byte[65536];
        for (int i = 0; i < buffer.length; i++) buffer[i] = (byte) (i / 64);
        int runs = 0;
        for (int round = 0; round < 10; round++)
            for (int i = 1; i < buffer.length; i++) if (buffer[i] != buffer[i - 1]) runs++;
        sink += runs;
    }

    static void allocate() {
        for (int i = 0; i < 2000; i++) {
            byte[] block = new byte[64 + (i * 37) % 4000];
            if (i % 100 == 0) kept.add(block);
        }
        if (kept.size() > 400) kept.subList(0, 200).clear();
    }

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        double factor = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
        List<Runnable> steps = List.of(Work::parse, Work::sortValues, () -> render(factor), Work::compress, Work::allocate);
        for (int r = 0; r < rounds; r++) steps.forEach(Runnable::run);
    }
}
