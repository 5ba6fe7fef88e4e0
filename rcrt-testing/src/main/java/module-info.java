/** Contract suites for host stores and model clients, a scripted model and a test clock. */
module dev.rcrt.testing {
  requires transitive dev.rcrt.llm;
  requires transitive org.junit.jupiter.api;
  requires org.assertj.core;

  exports dev.rcrt.testing;

  // JUnit runs the contract suites' test methods in the host's subclasses
  opens dev.rcrt.testing to org.junit.platform.commons;
}
