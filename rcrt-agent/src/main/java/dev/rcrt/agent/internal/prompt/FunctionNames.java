package dev.rcrt.agent.internal.prompt;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Maps tool names to OpenAI function names, which must match {@code ^[a-zA-Z0-9_-]{1,64}$}. A valid
 * name is kept; otherwise each other character becomes {@code _}, the result is cut to 64, and a
 * clash gets a {@code _2}, {@code _3}… suffix. The mapping is returned so calls map back exactly.
 */
public final class FunctionNames {
  public static final Pattern VALID = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

  private FunctionNames() {}

  /** Function name → tool name, in the order of {@code toolNames}. */
  public static Map<String, String> assign(List<String> toolNames) {
    Map<String, String> byFunction = new LinkedHashMap<>();
    Set<String> taken = new HashSet<>();
    for (String tool : toolNames) {
      if (VALID.matcher(tool).matches()) {
        taken.add(tool);
      }
    }
    for (String tool : toolNames) {
      String name = tool;
      if (!VALID.matcher(tool).matches()) {
        String base = tool.replaceAll("[^a-zA-Z0-9_-]", "_");
        base = base.isEmpty() ? "tool" : base;
        name = cut(base, "");
        for (int n = 2; taken.contains(name); n++) {
          name = cut(base, "_" + n);
        }
        taken.add(name);
      }
      byFunction.put(name, tool);
    }
    return byFunction;
  }

  private static String cut(String base, String suffix) {
    int room = 64 - suffix.length();
    return (base.length() > room ? base.substring(0, room) : base) + suffix;
  }
}
