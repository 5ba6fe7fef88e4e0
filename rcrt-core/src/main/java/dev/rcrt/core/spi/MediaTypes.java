package dev.rcrt.core.spi;

import java.util.Locale;

/** Reading {@code Content-Type} headers, the same way for tool endpoints and model endpoints. */
public final class MediaTypes {
  private MediaTypes() {}

  /**
   * Whether a {@code Content-Type} is JSON: {@code application/json} or a {@code +json} type such
   * as {@code application/problem+json}, with any parameters. A type that merely contains "json"
   * elsewhere is not.
   */
  public static boolean isJson(String contentType) {
    String media = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    return media.equals("application/json") || (media.contains("/") && media.endsWith("+json"));
  }
}
