/*
 * engine/probes/java/Probe.java: the stack probe of Java (docs/STACKS.md).
 *
 *	java -cp DIR/java:/usr/share/java/bcprov.jar Probe WARMUP M_KIB:T:P:N...
 *
 * What Spring Security's Argon2PasswordEncoder.encode() does: a fresh
 * 16-byte salt from SecureRandom, a new BouncyCastle Argon2BytesGenerator
 * (pure Java) over Argon2Parameters.Builder(ARGON2_id), a 32-byte hash,
 * then the encoded string: the java-bouncycastle stack.
 *
 * Exit 0 done, 1 a hash failed, 2 bad usage, 3 BouncyCastle is missing.
 */
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

public final class Probe {
	static final String PW = "correct-horse-16";

	static void usage(String why) {
		System.err.println("Probe: " + why);
		System.err.println("usage: java Probe WARMUP M_KIB:T:P:N...");
		System.exit(2);
	}

	static void line(String s) {
		System.out.println(s);
		System.out.flush();
	}

	static String quote(String s) {
		StringBuilder b = new StringBuilder("\"");
		for (char c : s.toCharArray()) {
			if (c == '"' || c == '\\')
				b.append('\\').append(c);
			else if (c < 0x20)
				b.append(String.format("\\u%04x", (int)c));
			else
				b.append(c);
		}
		return b.append('"').toString();
	}

	static long countIn(String s, long lo, long hi) {
		if (!s.matches("[0-9]{1,10}"))
			return -1;
		long v = Long.parseLong(s);
		return v >= lo && v <= hi ? v : -1;
	}

	/* BouncyCastle only in here, so that its absence is caught. */
	static final class Bc {
		static final SecureRandom RANDOM = new SecureRandom();

		static String version() {
			Package p = org.bouncycastle.crypto.params.Argon2Parameters
			    .class.getPackage();
			String v = p == null ? null : p.getImplementationVersion();
			if (v == null)
				v = new org.bouncycastle.jce.provider
				    .BouncyCastleProvider().getVersionStr();
			return v;
		}

		static String encode(int m, int t, int p) {
			byte[] salt = new byte[16];
			RANDOM.nextBytes(salt);
			org.bouncycastle.crypto.params.Argon2Parameters params =
			    new org.bouncycastle.crypto.params.Argon2Parameters
			    .Builder(org.bouncycastle.crypto.params.Argon2Parameters
			    .ARGON2_id)
			    .withSalt(salt).withParallelism(p)
			    .withMemoryAsKB(m).withIterations(t).build();
			org.bouncycastle.crypto.generators.Argon2BytesGenerator g =
			    new org.bouncycastle.crypto.generators
			    .Argon2BytesGenerator();
			g.init(params);
			byte[] hash = new byte[32];
			g.generateBytes(PW.toCharArray(), hash);
			/* As Spring's Argon2EncodingUtils.encode() writes it. */
			Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
			return "$argon2id$v=19$m=" + m + ",t=" + t + ",p=" + p +
			    "$" + b64.encodeToString(salt) + "$" +
			    b64.encodeToString(hash);
		}
	}

	public static void main(String[] args) {
		if (args.length < 2)
			usage("too few arguments");
		long warmup = countIn(args[0], 0, 100000);
		if (warmup < 0)
			usage("WARMUP is a count from 0 to 100000");
		List<long[]> pts = new ArrayList<>();
		for (int i = 1; i < args.length; i++) {
			String[] f = args[i].split(":", -1);
			if (f.length != 4)
				usage("a POINT is M_KIB:T:P:N");
			long m = countIn(f[0], 8, 4194304), t = countIn(f[1], 1, 65535);
			long p = countIn(f[2], 1, 255), n = countIn(f[3], 1, 100000);
			if (m < 0 || t < 0 || p < 0 || n < 0 || m < 8 * p)
				usage("bad POINT " + args[i] +
				    " (M_KIB:T:P:N, 8 KiB a lane at least)");
			pts.add(new long[] { m, t, p, n });
		}

		String version;
		try {
			Class.forName("org.bouncycastle.crypto.generators" +
			    ".Argon2BytesGenerator");
			version = Bc.version();
		} catch (ClassNotFoundException | LinkageError e) {
			line("{\"error\":" + quote("BouncyCastle (bcprov.jar, " +
			    "Debian's libbcprov-java) is not on the class path") +
			    "}");
			System.exit(3);
			return;
		}
		line("{\"probe\":\"java-bouncycastle\",\"runtime\":" +
		    quote("Java " + System.getProperty("java.version") + " (" +
		    System.getProperty("java.vm.name") + ")") +
		    ",\"library\":" + quote("BouncyCastle " + version +
		    " Argon2BytesGenerator (pure Java)") + "}");

		try {
			for (long[] pt : pts) {
				/*
				 * Untimed, at each point's m and p and two
				 * passes at most: the heap and the JIT are
				 * settled by them (a pass after the first
				 * runs code the first does not: the JIT must
				 * have seen it, or it compiles it again while
				 * timed).
				 */
				int wt = (int)Math.min(pt[1], 2);
				for (long i = 0; i < warmup; i++)
					Bc.encode((int)pt[0], wt, (int)pt[2]);
				StringBuilder b = new StringBuilder();
				b.append("{\"m_kib\":").append(pt[0])
				    .append(",\"t\":").append(pt[1])
				    .append(",\"p\":").append(pt[2])
				    .append(",\"samples_ms\":[");
				for (long k = 0; k < pt[3]; k++) {
					long a = System.nanoTime();
					Bc.encode((int)pt[0], (int)pt[1], (int)pt[2]);
					long ns = System.nanoTime() - a;
					if (k > 0)
						b.append(',');
					b.append(String.format(Locale.ROOT, "%.3f",
					    ns / 1e6));
				}
				line(b.append("]}").toString());
			}
		} catch (RuntimeException | OutOfMemoryError e) {
			line("{\"error\":" + quote("Argon2BytesGenerator: " + e) +
			    "}");
			System.exit(1);
		}
	}
}
