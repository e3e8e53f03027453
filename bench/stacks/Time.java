/*
 * bench/stacks/Time.java: times one (m, t, p) in Java with BouncyCastle,
 * as Spring Security's Argon2PasswordEncoder.encode() hashes (a fresh
 * salt, a new generator, the encoded string), independently of pwtune and
 * of its probes. Built by run.py.
 *
 *	java -cp DIR:/usr/share/java/bcprov.jar Time M_KIB T P WARMUP N
 *
 * Prints the N latencies in milliseconds on one line.
 */
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;
import java.util.StringJoiner;

import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

public final class Time {
	static final SecureRandom RANDOM = new SecureRandom();
	static String sink;

	static void one(int m, int t, int p) {
		byte[] salt = new byte[16];
		RANDOM.nextBytes(salt);
		Argon2Parameters params = new Argon2Parameters.Builder(
		    Argon2Parameters.ARGON2_id).withSalt(salt)
		    .withParallelism(p).withMemoryAsKB(m).withIterations(t)
		    .build();
		Argon2BytesGenerator g = new Argon2BytesGenerator();
		g.init(params);
		byte[] hash = new byte[32];
		g.generateBytes("bench-stacks-pw!".toCharArray(), hash);
		Base64.Encoder b = Base64.getEncoder().withoutPadding();
		sink = "$argon2id$v=19$m=" + m + ",t=" + t + ",p=" + p + "$" +
		    b.encodeToString(salt) + "$" + b.encodeToString(hash);
	}

	public static void main(String[] args) {
		if (args.length != 5) {
			System.err.println("usage: java Time M_KIB T P WARMUP N");
			System.exit(2);
		}
		int[] v = new int[5];
		for (int i = 0; i < 5; i++)
			v[i] = Integer.parseInt(args[i]);
		for (int i = 0; i < v[3]; i++)
			one(v[0], v[1], v[2]);
		StringJoiner out = new StringJoiner(" ");
		for (int i = 0; i < v[4]; i++) {
			long a = System.nanoTime();
			one(v[0], v[1], v[2]);
			out.add(String.format(Locale.ROOT, "%.3f",
			    (System.nanoTime() - a) / 1e6));
		}
		System.out.println(out);
	}
}
