package dev.rcrt.mcp.internal;

import dev.rcrt.mcp.McpOAuth;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** A user agent for tests: it records each authorization URL it is asked to open and answers as {@code redirect} says. */
final class RecordingUserAgent implements McpOAuth.UserAgent {
  static final URI REDIRECT = URI.create("http://127.0.0.1/callback");

  final List<URI> opened = new CopyOnWriteArrayList<>();
  private final Function<URI, URI> redirect;

  RecordingUserAgent(Function<URI, URI> redirect) {
    this.redirect = redirect;
  }

  /** A person who approves at once: the redirect carries {@code code} and the request's own state. */
  static RecordingUserAgent approving(String code) {
    return new RecordingUserAgent(authorization -> {
      String state = authorization.getRawQuery().replaceAll(".*(?:^|&)state=([^&]*).*", "$1");
      return URI.create(REDIRECT + "?code=" + code + "&state=" + state);
    });
  }

  @Override
  public URI redirectUri() {
    return REDIRECT;
  }

  @Override
  public URI authorize(URI authorization) {
    opened.add(authorization);
    return redirect.apply(authorization);
  }
}
