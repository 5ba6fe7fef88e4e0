package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.tools.Tool;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * The application's beans with {@code @Tool} methods. Types are read without creating beans, and
 * only beans with a {@code @Tool} method are created; a proxied bean (a {@code @Transactional}
 * service) is found by its own class and called through its proxy. Such a bean cannot itself depend
 * on the {@code ToolRunner} or {@code AgentExecutor} (a cycle Spring reports); inject an {@code
 * ObjectProvider} of them instead.
 */
final class ToolBeans {
  private ToolBeans() {}

  static List<Object> in(ListableBeanFactory beans) {
    List<Object> found = new ArrayList<>();
    for (String name : beans.getBeanNamesForType(Object.class, false, false)) {
      Class<?> type = beans.getType(name, false);
      if (type != null && hasTools(ClassUtils.getUserClass(type))) {
        found.add(beans.getBean(name));
      }
    }
    return found;
  }

  private static boolean hasTools(Class<?> type) {
    for (Method m : type.getMethods()) {
      if (AnnotatedElementUtils.hasAnnotation(m, Tool.class)) {
        return true;
      }
    }
    return false;
  }
}
