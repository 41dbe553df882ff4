package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.http.HttpGate;
import dev.leapgate.stats.StatsTotals;
import java.io.File;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The live status page in a real browser: Debian's Chromium, headless, driven by its
 * chromedriver through Selenium (never a downloaded browser). The application is the web.xml one
 * with {@code status-path} set; the test sends traffic from several clients through the trusted
 * proxy, then reads what the page shows and compares it with the gate's own numbers: they move as
 * traffic comes in, the client rejected most is named, the chart draws rejections, and the page's
 * Content-Security-Policy blocks nothing of its own (the browser logs no error). It saves a
 * screenshot as {@code target/status-page.png}.
 *
 * <p>Chromium and chromedriver must be installed ({@code apt-get install chromium
 * chromium-driver}; {@code .ci/run} does it): without them the test fails when the environment
 * variable {@code CI} is set, and is skipped, saying what to install, elsewhere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatusPageIT {

    private static final Path CHROMIUM = Path.of(System.getProperty("leapgate.it.chromium", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER =
            Path.of(System.getProperty("leapgate.it.chromedriver", "/usr/bin/chromedriver"));
    private static final String STATUS = "/leapgate/status";
    private static final String RULES = """
            # 30 greetings per minute per client, 150 per minute in all, and a stricter limit on trial
            rule.greet-per-ip.match = GET /hello
            rule.greet-per-ip.limit = 30/1m
            rule.greet-per-ip.scope = per-origin
            rule.greet-all.match = GET /hello
            rule.greet-all.limit = 150/1m
            rule.greet-trial.match = GET /hello
            rule.greet-trial.limit = 20/1m
            rule.greet-trial.scope = per-origin
            rule.greet-trial.mode = shadow
            rule.reports.match = /reports/**
            rule.reports.in-flight = 4
            """;
    /** The clients, each with the requests it sends per second. */
    private static final List<String> CLIENTS = List.of("203.0.113.7", "198.51.100.4", "192.0.2.10", "192.0.2.11");

    private static final int[] PER_SECOND = {4, 2, 1, 1};

    private TestWebApp web;
    private ChromeDriver browser;
    private Path profile;

    @BeforeAll
    void start() throws Exception {
        requireChromium();
        web = TestWebApp.withRules(RULES)
                .on(Container.JETTY, "/app")
                .editDescriptor(xml -> xml.replaceFirst(
                        "<init-param>",
                        "<init-param><param-name>status-path</param-name><param-value>" + STATUS
                                + "</param-value></init-param>\n    <init-param>"))
                .start();
        profile = Files.createTempDirectory("leapgate-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox", // as root in a container
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--window-size=1400,1000",
                "--user-data-dir=" + profile);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService driver = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(driver, options);
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (browser != null) {
                browser.quit(); // also stops chromedriver
            }
        } finally {
            if (web != null) {
                web.close();
            }
            if (profile != null) {
                TestWebApp.deleteTree(profile);
            }
        }
    }

    private static void requireChromium() {
        if (Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER)) {
            return;
        }
        String message = "StatusPageIT needs Chromium and its driver at " + CHROMIUM + " and " + CHROMEDRIVER
                + ": apt-get install chromium chromium-driver (Debian), or name yours with"
                + " -DargLine=\"-Dleapgate.it.chromium=... -Dleapgate.it.chromedriver=...\"";
        if (System.getenv("CI") != null) {
            Assertions.fail(message);
        }
        Assumptions.abort(message);
    }

    @Test
    void thePage_showsEachRule_itsTraffic_andTheClientsRejectedMost_asTheGateCountsThem() throws Exception {
        HttpGate gate = web.gate();
        browser.get(web.uri(STATUS).toString());
        Card before = waitFor("greet-per-ip", card -> card.admittedTotal() != null);
        assertThat(before.admittedTotal()).isEqualTo("0");
        assertThat(before.offenders()).isEmpty();
        assertThat(before.noOffenders()).isNotNull();

        // Twenty seconds of traffic on the test's clock, from four clients at 4, 2, 1 and 1 requests
        // a second (twice that every fifth second).
        for (int second = 0; second < 20; second++) {
            traffic(second % 5 == 4 ? 2 : 1);
            web.clock.advance(Duration.ofSeconds(1));
        }

        StatsTotals totals = gate.stats("GET /hello").orElseThrow().totals();
        assertThat(totals.admitted()).as("30 + 30 + 24 + 24").isEqualTo(108);
        Card perIp = waitFor("greet-per-ip", card -> count(totals.admitted()).equals(card.admittedTotal()));
        assertThat(perIp.rejectedTotal())
                .as("every rejection is this rule's")
                .isEqualTo(count(totals.rejected()))
                .isEqualTo("84");
        assertThat(perIp.offenders()).as("the clients rejected most").containsExactly("203.0.113.7", "198.51.100.4");
        assertThat(perIp.limited())
                .isEqualTo(String.valueOf(gate.limitedOrigins("greet-per-ip").orElseThrow()))
                .isEqualTo("2");
        assertThat(perIp.tracked()).isEqualTo("4");
        assertThat(heights(perIp.rejected()))
                .as("the chart draws the rule's rejections")
                .anyMatch(h -> h > 0);
        assertThat(heights(perIp.admitted())).as("and the admissions").anyMatch(h -> h > 0);
        assertThat(perIp.shadowRejected())
                .as("an enforced rule has no would-be line")
                .isNull();
        Card trial = card("greet-trial");
        assertThat(trial.badge()).isEqualTo("shadow");
        assertThat(trial.offenders())
                .as("whom the shadow rule would have rejected")
                .contains("203.0.113.7");
        assertThat(trial.rejectedTotal())
                .as("what the shadow rule would have rejected")
                .isEqualTo(count(gate.rejections("greet-trial").orElseThrow().total()))
                .isNotEqualTo("0");
        assertThat(heights(trial.shadowRejected())).as("drawn as its own line").anyMatch(h -> h > 0);
        assertThat(trial.rejected()).as("a shadow rule rejects nothing").isNull();
        assertThat(card("greet-all").rejectedTotal())
                .as("the global rule never rejected")
                .isEqualTo("0");
        assertThat(card("greet-all").used())
                .as("the shared window's use against its limit")
                .isEqualTo(String.valueOf(totals.admitted()));
        assertThat(card("reports").used()).as("nothing in flight").isEqualTo("0");
        save("status-page.png");

        // The numbers move with the next request.
        HttpResponse<String> next = web.getFor("192.0.2.99", "/hello");
        assertThat(next.statusCode()).isEqualTo(200);
        Card after =
                waitFor("greet-per-ip", card -> count(totals.admitted() + 1).equals(card.admittedTotal()));
        assertThat(after.tracked()).isEqualTo("5");

        List<LogEntry> problems = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.WARNING.intValue())
                .toList();
        assertThat(problems)
                .as("no script error, nothing blocked by the page's own policy")
                .isEmpty();
    }

    /** What a rule's card shows, read in one script run (the page redraws every second). */
    record Card(
            String admittedTotal,
            String rejectedTotal,
            String tracked,
            String limited,
            String used,
            String badge,
            String noOffenders,
            List<String> offenders,
            String admitted,
            String rejected,
            String shadowRejected) {}

    private static final String READ_CARD = """
            const card = document.querySelector(`section[data-rule="${arguments[0]}"]`);
            if (!card) {
              return null;
            }
            const text = css => card.querySelector(css)?.textContent ?? null;
            const points = series => card.querySelector(`polyline[data-series="${series}"]`)?.getAttribute('points') ?? null;
            return [text('.admitted-total'), text('.rejected-total'), text('.tracked'), text('.limited'),
              text('.used'), text('.badge'), text('.offenders-none'),
              [...card.querySelectorAll('.offenders td.client')].map(cell => cell.textContent),
              points('admitted'), points('rejected'), points('shadowRejected')];
            """;

    @SuppressWarnings("unchecked")
    private Card read(String rule) {
        List<Object> fields = (List<Object>) browser.executeScript(READ_CARD, rule);
        if (fields == null) {
            return null;
        }
        return new Card(
                (String) fields.get(0),
                (String) fields.get(1),
                (String) fields.get(2),
                (String) fields.get(3),
                (String) fields.get(4),
                (String) fields.get(5),
                (String) fields.get(6),
                (List<String>) fields.get(7),
                (String) fields.get(8),
                (String) fields.get(9),
                (String) fields.get(10));
    }

    private Card card(String rule) {
        return waitFor(rule, card -> true);
    }

    /** Waits (up to 15 s: the page polls every second) until the rule's card shows what {@code shows} wants. */
    private Card waitFor(String rule, Predicate<Card> shows) {
        return new WebDriverWait(browser, Duration.ofSeconds(15)).until(driver -> {
            Card card = read(rule);
            return card != null && shows.test(card) ? card : null;
        });
    }

    /** One second of traffic, {@code times} the usual rate. */
    private void traffic(int times) throws Exception {
        for (int c = 0; c < CLIENTS.size(); c++) {
            for (int i = 0; i < PER_SECOND[c] * times; i++) {
                int status = web.getFor(CLIENTS.get(c), "/hello").statusCode();
                assertThat(status).isIn(200, 429);
            }
        }
    }

    /** The heights above the chart's baseline of a series' points (the chart is 40 units high). */
    private static List<Double> heights(String points) {
        assertThat(points).as("the series is drawn").isNotNull();
        return Arrays.stream(points.trim().split("\\s+"))
                .map(point -> 39 - Double.parseDouble(point.substring(point.indexOf(',') + 1)))
                .toList();
    }

    /** A count as the page writes it (en-US grouping). */
    private static String count(long n) {
        return String.format(Locale.US, "%,d", n);
    }

    private void save(String name) throws Exception {
        File shot = browser.getScreenshotAs(OutputType.FILE);
        Path target = Path.of("target", name);
        Files.createDirectories(target.getParent());
        Files.move(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
    }
}
