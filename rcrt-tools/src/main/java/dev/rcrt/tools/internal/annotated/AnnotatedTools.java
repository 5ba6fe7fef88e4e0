package dev.rcrt.tools.internal.annotated;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.spi.Ids;
import dev.rcrt.tools.Tool;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.ToolParam;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Tool} methods of host objects as tools: each method's {@code tool.v1} record (schemas
 * generated from its parameters and return type) and the handler that binds a validated input to
 * its arguments with Jackson, invokes it and serialises what it returns.
 */
public final class AnnotatedTools {

  private AnnotatedTools() {}

  /**
   * One tool: its name, the record to publish, the handler to register, and the method it came from
   * (for messages).
   */
  public record Found(String name, BreadcrumbCreate record, ToolHandler handler, String method) {}

  /**
   * Every {@code @Tool} method of {@code beans}, in a stable order (by class, then method name).
   * Names are not checked here: {@code ToolRunner.Builder} refuses a name that two tools share,
   * naming both, whichever calls they came from.
   *
   * @throws IllegalArgumentException for a parameter with no name, or a method that is not public
   */
  public static List<Found> of(Object... beans) {
    List<Found> found = new ArrayList<>();
    for (Object bean : beans) {
      Objects.requireNonNull(bean, "bean");
      List<Method> methods = new ArrayList<>(Arrays.asList(bean.getClass().getMethods()));
      for (Method m : bean.getClass().getDeclaredMethods()) {
        if (m.isAnnotationPresent(Tool.class) && !Modifier.isPublic(m.getModifiers())) {
          throw new IllegalArgumentException("@Tool method " + where(m) + " must be public");
        }
      }
      methods.sort(Comparator.comparing(Method::getName).thenComparing(Method::toGenericString));
      for (Method m : methods) {
        Method declared = annotated(m);
        if (declared != null) {
          found.add(tool(bean, declared, declared.getAnnotation(Tool.class)));
        }
      }
    }
    return List.copyOf(found);
  }

  /**
   * The method that carries {@code @Tool} for public method {@code m}: {@code m} itself, or the
   * method it overrides in a superclass. A proxy subclass (Spring's CGLIB proxies for
   * {@code @Transactional} beans) overrides every method without its annotations or parameter
   * names; the superclass's method, invoked on the proxy, still runs through the proxy.
   */
  private static @Nullable Method annotated(Method m) {
    for (Class<?> c = m.getDeclaringClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      try {
        Method candidate = c.getDeclaredMethod(m.getName(), m.getParameterTypes());
        if (candidate.isAnnotationPresent(Tool.class)) {
          return candidate;
        }
      } catch (NoSuchMethodException e) {
        // not declared at this level; look further up
      }
    }
    return null;
  }

  private static Found tool(Object bean, Method m, Tool tool) {
    String name = tool.name().isBlank() ? m.getName() : tool.name();
    String where = where(m);
    Parameter[] parameters = m.getParameters();
    String[] names = new String[parameters.length];
    JavaType[] types = new JavaType[parameters.length];
    List<JavaSchemas.Property> properties = new ArrayList<>();
    for (int i = 0; i < parameters.length; i++) {
      Parameter p = parameters[i];
      if (p.getType() == ToolContext.class) {
        continue; // the call's context, not part of the input
      }
      ToolParam param = p.getAnnotation(ToolParam.class);
      String pname = param != null && !param.name().isBlank() ? param.name() : p.isNamePresent() ? p.getName() : null;
      if (pname == null) {
        throw new IllegalArgumentException(
            "parameter " + i + " of " + where + " has no name: compile with javac -parameters, or name it with @ToolParam(name = ...)");
      }
      Type type = p.getParameterizedType();
      names[i] = pname;
      types[i] = JavaBinding.typeOf(type);
      boolean required = param == null || param.required();
      properties.add(new JavaSchemas.Property(pname, type, param == null ? "" : param.description(), required));
    }
    ObjectNode context = RcrtJson.object().put("name", name).put("description", tool.description());
    if (!tool.category().isBlank()) {
      context.put("category", tool.category());
    }
    context.set("input_schema", JavaSchemas.object(properties));
    Type returns = m.getGenericReturnType();
    boolean none = returns == void.class || returns == Void.class;
    context.set("output_schema", none ? RcrtJson.object().put("type", "object") : JavaSchemas.of(returns));
    if (tool.requiresApproval()) {
      context.put("requires_approval", true);
    }
    if (tool.timeoutMs() > 0) {
      context.putObject("limits").put("timeout_ms", tool.timeoutMs());
    }
    context.putObject("implementation").put("type", "builtin");
    context.putObject("source").put("java_method", where);
    BreadcrumbCreate record = BreadcrumbCreate.builder("tool.v1", name)
        .id(Ids.named("tool.v1/" + name))
        .tags("tool", "workspace:tools")
        .context(context)
        .build();
    ToolHandler handler = (input, ctx) -> {
      @Nullable Object[] args = new Object[parameters.length];
      for (int i = 0; i < parameters.length; i++) {
        if (parameters[i].getType() == ToolContext.class) {
          args[i] = ctx;
          continue;
        }
        JsonNode value = input.get(names[i]);
        args[i] = value == null || value.isNull()
            ? (parameters[i].getType().isPrimitive() ? JavaBinding.bind(RcrtJson.nodes().numberNode(0), types[i], names[i]) : null)
            : JavaBinding.bind(value, types[i], names[i]);
      }
      @Nullable Object result;
      try {
        result = m.invoke(Modifier.isStatic(m.getModifiers()) ? null : bean, (Object[]) args);
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (cause instanceof Exception ex) {
          throw ex;
        }
        if (cause instanceof Error error) { // OutOfMemoryError and the like: the chain records the call, then rethrows it
          throw error;
        }
        throw new ToolException(ToolErrorCode.TOOL_FAILED, name + " failed: " + cause, cause);
      }
      return none ? RcrtJson.object() : JavaBinding.toJson(result);
    };
    return new Found(name, record, handler, where);
  }

  /** A typed tool: its record, with schemas generated from {@code input} and {@code output}, and its handler. */
  public static <I, O> Found typed(String name, String description, Class<I> input, Class<O> output, java.util.function.Function<? super I, ? extends O> fn) {
    ObjectNode context = RcrtJson.object().put("name", name).put("description", description);
    context.set("input_schema", JavaSchemas.of(input));
    context.set("output_schema", JavaSchemas.of(output));
    context.putObject("implementation").put("type", "builtin");
    BreadcrumbCreate record = BreadcrumbCreate.builder("tool.v1", name).id(Ids.named("tool.v1/" + name)).tags("tool", "workspace:tools").context(context).build();
    return new Found(name, record, ToolHandler.typed(input, output, fn), "typed tool '" + name + "' (" + input.getSimpleName() + " -> " + output.getSimpleName() + ")");
  }

  private static String where(Method m) {
    StringBuilder s = new StringBuilder(m.getDeclaringClass().getName()).append('.').append(m.getName()).append('(');
    Class<?>[] params = m.getParameterTypes();
    for (int i = 0; i < params.length; i++) {
      s.append(i == 0 ? "" : ", ").append(params[i].getSimpleName());
    }
    return s.append(')').toString();
  }
}
