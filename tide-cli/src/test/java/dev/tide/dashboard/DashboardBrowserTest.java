package dev.tide.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.meta.ClusterSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The dashboard in headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, which
 * {@code .ci/run} installs) against a running cluster: every page loads without console errors, the
 * job's graph shows its fragments, a scale confirmed on the job page changes the layout (checked
 * through meta), and each page's screenshot is written to {@code target/dashboard/}.
 */
class DashboardBrowserTest {
  private static final Path SHOTS = Path.of("target", "dashboard");
  private static final Duration PATIENCE = Duration.ofMinutes(1);

  private static WebDriver chromium() {
    for (String exe : List.of("/usr/bin/chromium", "/usr/bin/chromedriver")) {
      assertThat(Files.isExecutable(Path.of(exe))).as(exe + " is missing: the dashboard's browser test needs Debian's chromium and"
          + " chromium-driver; install them with 'apt-get install -y chromium chromium-driver', as .ci/run does").isTrue();
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1300");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new java.io.File("/usr/bin/chromedriver")).build();
    return new ChromeDriver(service, options);
  }

  private static void shot(WebDriver driver, String page) throws Exception {
    Files.createDirectories(SHOTS);
    Files.write(SHOTS.resolve(page + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
  }

  private static void noConsoleErrors(WebDriver driver, String page) {
    List<LogEntry> severe = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
    assertThat(severe).as("console errors on the " + page + " page").isEmpty();
  }

  private static Object js(WebDriver driver, String script) {
    return ((JavascriptExecutor) driver).executeScript(script);
  }

  private static int actors(ClusterSnapshot.JobView job) {
    return job.layout().actorsPerWorker().values().stream().mapToInt(Integer::intValue).sum();
  }

  @Test
  void pagesLoadTheGraphShowsTheFragmentsAndAScaleFromThePageChangesTheLayout(@TempDir Path dir) throws Exception {
    try (DashboardCluster c = new DashboardCluster(dir, Optional.empty())) {
      // Some history first, so that the charts have lines.
      await().atMost(PATIENCE).until(() -> c.get("/api/dash/history", false).body().split("atMs").length > 8);
      WebDriver driver = chromium();
      try {
        driver.get(c.base() + "/#cluster");
        await().atMost(PATIENCE).until(() -> driver.findElements(By.cssSelector("#workers .state.active")).size() == 2);
        assertThat(driver.findElement(By.id("groups")).getText()).contains("group");
        shot(driver, "cluster");
        noConsoleErrors(driver, "cluster");

        ClusterSnapshot.JobView before = c.meta.meta().snapshot().jobs().get("q1");
        int fragments = before.definition().getFragmentsCount();
        driver.get(c.base() + "/#job/q1");
        await().atMost(PATIENCE).until(() -> driver.findElements(By.cssSelector("#fragments tr[data-fragment]")).size() == fragments);
        @SuppressWarnings("unchecked")
        List<String> names = (List<String>) js(driver, "return echarts.getInstanceByDom(document.getElementById('graph'))"
            + ".getOption().series[0].data.map(d => d.name)");
        assertThat(names).containsExactlyInAnyOrderElementsOf(before.definition().getFragmentsList().stream()
            .map(f -> "F" + f.getFragmentId()).toList());
        Thread.sleep(2500); // one more refresh, so that the time series charts are drawn
        shot(driver, "job");
        noConsoleErrors(driver, "job");

        // Scale to one actor per fragment from the page: the dry run's diff first, then the confirmed scale.
        assertThat(actors(before)).isGreaterThan(fragments);
        driver.findElement(By.id("scale-parallelism")).sendKeys("1");
        driver.findElement(By.id("scale-preview")).click();
        await().atMost(PATIENCE).until(() -> driver.findElement(By.id("dialog")).isDisplayed());
        assertThat(driver.findElement(By.id("dialog-body")).getText()).contains("actors " + actors(before) + " -> " + fragments);
        assertThat(c.meta.meta().snapshot().jobs().get("q1").intent().render()).isEqualTo(before.intent().render());
        shot(driver, "scale-confirm");
        driver.findElement(By.id("dialog-ok")).click();
        await().atMost(PATIENCE).until(() -> actors(c.meta.meta().snapshot().jobs().get("q1")) == fragments);
        assertThat(c.meta.meta().snapshot().jobs().get("q1").intent().render()).isEqualTo("1");
        noConsoleErrors(driver, "job");

        driver.get(c.base() + "/#placement/q1");
        await().atMost(PATIENCE).until(() -> driver.findElements(By.cssSelector(".fragment-placement")).size() == fragments
            && driver.findElement(By.id("placement-note")).getText().contains("before and after"));
        shot(driver, "placement");
        noConsoleErrors(driver, "placement");

        // The throughput line goes on past the reschedule: samples 3 s after its event.
        long rescheduledAtMs = c.meta.meta().events().since(0).stream().filter(e -> e.kind().equals("reschedule")).findFirst()
            .orElseThrow().atMs();
        await().atMost(PATIENCE).until(() -> c.meta.meta().clock().nowMillis() > rescheduledAtMs + 4000);
        driver.get(c.base() + "/#timeline");
        await().atMost(PATIENCE).until(() -> driver.findElement(By.id("events")).getText().contains("reschedule"));
        @SuppressWarnings("unchecked")
        List<Number> lastSample = (List<Number>) js(driver, "return echarts.getInstanceByDom(document.getElementById('timeline'))"
            + ".getOption().series[0].data.slice(-1)[0]");
        assertThat(lastSample.get(0).longValue()).as("a throughput sample after the reschedule").isGreaterThan(rescheduledAtMs);
        shot(driver, "timeline");
        noConsoleErrors(driver, "timeline");

        driver.get(c.base() + "/#views/q1");
        await().atMost(PATIENCE).until(() -> driver.findElements(By.cssSelector("#view-rows tr")).size() > 5);
        driver.findElement(By.id("view-next")).click();
        await().atMost(PATIENCE).until(() -> driver.findElement(By.id("view-info")).getText().startsWith("rows 26"));
        shot(driver, "views");
        noConsoleErrors(driver, "views");
      } finally {
        driver.quit();
      }
    }
  }
}
