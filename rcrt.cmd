@echo off
rem rcrt.cmd: the RCRT command line on Windows. Runs the built jar (rcrt-cli\target\rcrt-cli.jar and the
rem lib\ folder beside it); builds it first with Maven when it is missing. Needs a JDK 17 or newer on the PATH.
setlocal
set "HERE=%~dp0"
set "JAR=%HERE%rcrt-cli\target\rcrt-cli.jar"
where java >nul 2>nul
if errorlevel 1 (
  echo rcrt: no java on the PATH: install a JDK 17 or newer ^(https://adoptium.net^), or put its bin folder on the PATH 1>&2
  exit /b 1
)
if not exist "%JAR%" (
  where mvn >nul 2>nul
  if errorlevel 1 (
    echo rcrt: the command line is not built and there is no mvn on the PATH: install Maven 3.8 or newer and run rcrt again 1>&2
    exit /b 1
  )
  echo rcrt: building the command line ^(first run^)... 1>&2
  call mvn -q -B -DskipTests -f "%HERE%pom.xml" -pl rcrt-cli -am package
  if errorlevel 1 (
    echo rcrt: build failed; run mvn -B -DskipTests -pl rcrt-cli -am package to see why 1>&2
    exit /b 1
  )
)
java %RCRT_JAVA_OPTS% -jar "%JAR%" %*
exit /b %errorlevel%
