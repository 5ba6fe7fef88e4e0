package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.RecordSignatures;
import dev.rcrt.tools.ToolTrustPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;

/** {@code rcrt.trust.*} as a {@link ToolTrustPolicy}: the CLI's {@code --allow-*} switches as properties. */
final class TrustProperties {
  private TrustProperties() {}

  static ToolTrustPolicy policy(RcrtProperties.Trust trust) {
    ToolTrustPolicy.Builder b = ToolTrustPolicy.builder().howToAllow(ToolTrustPolicy.Builder.switches(
        "rcrt.trust.allow-network", "rcrt.trust.allow-image", "rcrt.trust.allow-command", "rcrt.trust.allow-module-dir", "="));
    b.allowRequesterTools(trust.getRequesterTools().toArray(String[]::new));
    trust.getAllowNetwork().forEach(b::allowNetwork);
    b.allowImages(trust.getAllowImage().toArray(String[]::new));
    b.allowCommands(trust.getAllowCommand().toArray(String[]::new));
    trust.getAllowModuleDir().forEach(b::allowModuleLocation);
    if (!trust.getTrustedKeys().isEmpty()) {
      List<PublicKey> keys = new ArrayList<>();
      for (Path pem : trust.getTrustedKeys()) {
        try {
          keys.add(RecordSignatures.readPublicKey(pem));
        } catch (IOException | ValidationException e) {
          throw new IllegalStateException("rcrt.trust.trusted-keys: cannot read " + pem + ": " + e.getMessage(), e);
        }
      }
      b.requireSignatures(keys.toArray(PublicKey[]::new));
    }
    return b.build();
  }
}
