package dev.rcrt.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.RecordSignatures;
import dev.rcrt.tools.ToolTrustPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Option and parameter values checked while the command line is parsed, so that a bad value is a
 * usage error (exit 2, the option named, the usage printed) rather than a failure of the command.
 */
final class Converters {
  private Converters() {}

  /** A duration: {@code 500ms}, {@code 3s}, {@code 2m}, {@code 1h}, or ISO-8601 ({@code PT1H30M}). */
  static final class Durations implements ITypeConverter<java.time.Duration> {
    private static final java.util.regex.Pattern SHORT = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h|d)");

    @Override
    public java.time.Duration convert(String value) {
      java.util.regex.Matcher m = SHORT.matcher(value.strip());
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
          case "ms" -> java.time.Duration.ofMillis(n);
          case "s" -> java.time.Duration.ofSeconds(n);
          case "m" -> java.time.Duration.ofMinutes(n);
          case "h" -> java.time.Duration.ofHours(n);
          default -> java.time.Duration.ofDays(n);
        };
      }
      try {
        return java.time.Duration.parse(value.strip());
      } catch (java.time.format.DateTimeParseException e) {
        throw new TypeConversionException("expected a duration such as 500ms, 3s, 2m, 1h or PT1H30M, found '" + value + "'");
      }
    }
  }

  /** Any JSON value. */
  static final class Json implements ITypeConverter<JsonNode> {
    @Override
    public JsonNode convert(String value) {
      try {
        return RcrtJson.parse(value);
      } catch (ValidationException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** An RCRT selector object. */
  static final class SelectorJson implements ITypeConverter<Selector> {
    @Override
    public Selector convert(String value) {
      try {
        return Selector.fromJson(RcrtJson.parse(value));
      } catch (ValidationException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** A file or directory that exists. */
  static final class ExistingPath implements ITypeConverter<Path> {
    @Override
    public Path convert(String value) {
      Path path = Path.of(value);
      if (!Files.exists(path)) {
        throw new TypeConversionException("no such file or directory: " + value);
      }
      return path;
    }
  }

  /** A network in CIDR notation that the trust policy accepts. */
  static final class Cidr implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        ToolTrustPolicy.builder().allowNetwork(value);
        return value;
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** Where to listen: {@code PORT} (on 127.0.0.1) or {@code HOST:PORT}, the port 0 to 65535. */
  record HostPortValue(String host, int port) {}

  /** Reads {@code [HOST:]PORT}; a bracketed IPv6 host such as {@code [::1]:8808} too. */
  static final class HostPort implements ITypeConverter<HostPortValue> {
    @Override
    public HostPortValue convert(String value) {
      int colon = value.lastIndexOf(':');
      String host = colon < 0 ? "127.0.0.1" : value.substring(0, colon).replace("[", "").replace("]", "");
      String port = colon < 0 ? value : value.substring(colon + 1);
      try {
        int n = Integer.parseInt(port);
        if (n < 0 || n > 65535 || host.isBlank()) {
          throw new NumberFormatException();
        }
        return new HostPortValue(host, n);
      } catch (NumberFormatException e) {
        throw new TypeConversionException("'" + value + "' is not [HOST:]PORT, such as 8808 or 127.0.0.1:8808");
      }
    }
  }

  /** A store URL ({@link StoreUrl}). */
  static final class StoreUrlValue implements ITypeConverter<StoreUrl> {
    @Override
    public StoreUrl convert(String value) {
      try {
        return StoreUrl.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** An Ed25519 public key in a PEM file. */
  static final class PublicKeyFile implements ITypeConverter<PublicKey> {
    @Override
    public PublicKey convert(String value) {
      try {
        return RecordSignatures.readPublicKey(Path.of(value));
      } catch (java.io.IOException e) {
        throw new TypeConversionException("cannot read " + value + ": " + e.getMessage());
      } catch (ValidationException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** An Ed25519 private key in a PEM file. */
  static final class PrivateKeyFile implements ITypeConverter<PrivateKey> {
    @Override
    public PrivateKey convert(String value) {
      try {
        return RecordSignatures.readPrivateKey(Path.of(value));
      } catch (java.io.IOException e) {
        throw new TypeConversionException("cannot read " + value + ": " + e.getMessage());
      } catch (ValidationException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
