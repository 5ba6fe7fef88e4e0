package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Objects;
import org.erdtman.jcs.JsonCanonicalizer;
import org.jspecify.annotations.Nullable;

/**
 * Publisher signatures on the records that become behaviour (tools, tool configs, agent
 * definitions, code breadcrumbs), for stores that many processes write to, where the writer fields
 * are only a claim.
 *
 * <p>A signature is Ed25519 (the JDK's own) over the RFC 8785 canonical JSON of {@code
 * {"schema_name": …, "context": …}}, the context without its {@code signature} field: the fields
 * that decide what the record does. Title, tags, hints and timestamps are not signed. It is kept in
 * the record as {@code context.signature = {alg: "Ed25519", public_key, value}} (both base64; the
 * key as X.509 {@code SubjectPublicKeyInfo}), so a reader can check integrity alone and trust
 * against its own list of publisher keys ({@link ToolTrustPolicy.Builder#requireSignatures}).
 *
 * <p>Keys are read from PEM files: {@code openssl genpkey -algorithm ed25519 -out publisher.pem}
 * makes a private key, {@code openssl pkey -in publisher.pem -pubout -out publisher.pub.pem} its
 * public key. Stateless and thread-safe.
 */
public final class RecordSignatures {
  /** The context field holding the signature. */
  public static final String FIELD = "signature";

  private static final String ALG = "Ed25519";

  private RecordSignatures() {}

  /**
   * {@code context} with a signature by {@code key} for a record of {@code schemaName}; an older
   * signature is replaced. The input is not changed.
   */
  public static ObjectNode sign(@Nullable String schemaName, JsonNode context, PrivateKey key, PublicKey publicKey) {
    ObjectNode signed = unsigned(context);
    try {
      Signature s = Signature.getInstance(ALG);
      s.initSign(key);
      s.update(payload(schemaName, signed));
      ObjectNode sig = signed.putObject(FIELD);
      sig.put("alg", ALG);
      sig.put("public_key", Base64.getEncoder().encodeToString(publicKey.getEncoded()));
      sig.put("value", Base64.getEncoder().encodeToString(s.sign()));
      return signed;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot sign with this key: " + e.getMessage(), e);
    }
  }

  /**
   * Why the record's signature is not a valid signature by one of {@code trusted}, in one line, or
   * null when it is. With {@code trusted} null, any valid signature passes (an integrity check).
   */
  public static @Nullable String problem(@Nullable String schemaName, JsonNode context, @Nullable Collection<PublicKey> trusted) {
    JsonNode sig = context.get(FIELD);
    if (sig == null || !sig.isObject()) {
      return "it is not signed (no context.signature)";
    }
    if (!ALG.equals(sig.path("alg").asText())) {
      return "its signature algorithm '" + sig.path("alg").asText() + "' is not Ed25519";
    }
    PublicKey key;
    byte[] value;
    try {
      key = KeyFactory.getInstance(ALG).generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(sig.path("public_key").asText())));
      value = Base64.getDecoder().decode(sig.path("value").asText());
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      return "its signature is malformed (" + e.getMessage() + ")";
    }
    if (trusted != null && trusted.stream().noneMatch(k -> k.equals(key))) {
      return "it is signed by key " + keyId(key) + ", which is not a trusted publisher key";
    }
    try {
      Signature s = Signature.getInstance(ALG);
      s.initVerify(key);
      s.update(payload(schemaName, unsigned(context)));
      return s.verify(value) ? null : "its signature does not match: a signed field (schema_name or context) changed after signing";
    } catch (GeneralSecurityException e) {
      return "its signature cannot be checked (" + e.getMessage() + ")";
    }
  }

  /** A short, stable name for a key: {@code ed25519:} and the first 16 hex digits of its SHA-256. */
  public static String keyId(PublicKey key) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
      return "ed25519:" + HexFormat.of().formatHex(digest, 0, 8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * Reads an Ed25519 private key from a PKCS#8 PEM file ({@code -----BEGIN PRIVATE KEY-----}).
   *
   * @throws ValidationException naming the file if it is not one
   * @throws IOException if the file cannot be read
   */
  public static PrivateKey readPrivateKey(Path pem) throws IOException {
    try {
      return KeyFactory.getInstance(ALG).generatePrivate(new PKCS8EncodedKeySpec(der(pem, "PRIVATE KEY")));
    } catch (GeneralSecurityException e) {
      throw new ValidationException(pem + ": not an Ed25519 private key (" + e.getMessage() + ")");
    }
  }

  /**
   * Reads an Ed25519 public key from a PEM file ({@code -----BEGIN PUBLIC KEY-----}).
   *
   * @throws ValidationException naming the file if it is not one
   * @throws IOException if the file cannot be read
   */
  public static PublicKey readPublicKey(Path pem) throws IOException {
    try {
      return KeyFactory.getInstance(ALG).generatePublic(new X509EncodedKeySpec(der(pem, "PUBLIC KEY")));
    } catch (GeneralSecurityException e) {
      throw new ValidationException(pem + ": not an Ed25519 public key (" + e.getMessage() + ")");
    }
  }

  /**
   * The public key of an Ed25519 private key. The JDK has no call for it, so the key pair is
   * generated again from the private key's seed, and a probe signature checks the result.
   *
   * @throws IllegalArgumentException if {@code key} is not an Ed25519 key or the derivation fails
   */
  public static PublicKey publicKeyOf(PrivateKey key) {
    try {
      byte[] seed = ((java.security.interfaces.EdECPrivateKey) key).getBytes()
          .orElseThrow(() -> new IllegalArgumentException("the private key does not expose its seed"));
      java.security.KeyPairGenerator g = java.security.KeyPairGenerator.getInstance(ALG);
      g.initialize(java.security.spec.NamedParameterSpec.ED25519, new FixedSeed(seed));
      PublicKey derived = g.generateKeyPair().getPublic();
      byte[] probe = "rcrt key probe".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(ALG);
      s.initSign(key);
      s.update(probe);
      byte[] sig = s.sign();
      s.initVerify(derived);
      s.update(probe);
      if (!s.verify(sig)) {
        throw new IllegalArgumentException("could not derive the public key of this private key");
      }
      return derived;
    } catch (ClassCastException | GeneralSecurityException e) {
      throw new IllegalArgumentException("not an Ed25519 private key: " + e.getMessage(), e);
    }
  }

  private static byte[] der(Path pem, String label) throws IOException {
    String text = Files.readString(pem, StandardCharsets.US_ASCII);
    String begin = "-----BEGIN " + label + "-----";
    int from = text.indexOf(begin);
    int to = text.indexOf("-----END " + label + "-----");
    if (from < 0 || to < from) {
      throw new ValidationException(pem + ": expected a PEM block '" + begin + "'");
    }
    return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
  }

  private static ObjectNode unsigned(JsonNode context) {
    if (!context.isObject()) {
      throw new ValidationException("a signed record's context must be a JSON object, found " + context.getNodeType());
    }
    ObjectNode copy = ((ObjectNode) context).deepCopy();
    copy.remove(FIELD);
    return copy;
  }

  private static byte[] payload(@Nullable String schemaName, ObjectNode context) {
    ObjectNode signed = RcrtJson.object();
    signed.put("schema_name", Objects.requireNonNullElse(schemaName, ""));
    signed.set("context", context);
    try {
      return new JsonCanonicalizer(RcrtJson.write(signed)).getEncodedUTF8();
    } catch (IOException e) {
      throw new ValidationException("cannot canonicalise the record for its signature: " + e.getMessage());
    }
  }

  /** A {@link java.security.SecureRandom} that yields one fixed seed: derives an Ed25519 key pair from a private key. */
  private static final class FixedSeed extends java.security.SecureRandom {
    private static final long serialVersionUID = 1L;
    private final byte[] seed;

    FixedSeed(byte[] seed) {
      this.seed = seed.clone();
    }

    @Override
    public void nextBytes(byte[] bytes) {
      System.arraycopy(seed, 0, bytes, 0, Math.min(bytes.length, seed.length));
    }
  }
}
