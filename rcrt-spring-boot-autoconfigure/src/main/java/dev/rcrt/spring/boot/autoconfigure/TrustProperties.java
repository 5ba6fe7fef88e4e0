package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.Capability;
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
    ToolTrustPolicy.Builder b = ToolTrustPolicy.builder().howToAllow(TrustProperties::property);
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

  /** The property that allows {@code capability}: refusals in a Spring Boot application name it. */
  static String property(Capability capability) {
    if (capability instanceof Capability.ContainerImage c) {
      return "rcrt.trust.allow-image=" + c.image();
    }
    if (capability instanceof Capability.ModuleJar m) {
      return "rcrt.trust.allow-module-dir=" + ToolTrustPolicy.Builder.directoryOf(m.location());
    }
    if (capability instanceof Capability.StartProcess p) {
      return "rcrt.trust.allow-command=" + p.program();
    }
    return "rcrt.trust.allow-network=" + ToolTrustPolicy.Builder.hostRange((Capability.Connect) capability);
  }
}
