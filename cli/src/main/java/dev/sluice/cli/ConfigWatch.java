package dev.sluice.cli;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Watches the configuration file and runs an action (the reload) when it is written, created or
 * moved into place. The directory is watched, not the file, so an editor's write-then-rename is
 * seen; events within {@link #SETTLE} of each other are one change, so a file written in several
 * steps is read once, whole. The reload itself validates first and applies all or nothing.
 */
final class ConfigWatch implements AutoCloseable {

    /** Quiet time after the last event before the action runs. */
    static final Duration SETTLE = Duration.ofMillis(200);

    private final WatchService watcher;
    private final Thread thread;

    private ConfigWatch(WatchService watcher, Thread thread) {
        this.watcher = watcher;
        this.thread = thread;
    }

    /** Starts watching {@code file}; {@code action} runs on the watch's own thread. */
    static ConfigWatch start(Path file, Runnable action) throws IOException {
        Path absolute = file.toAbsolutePath();
        Path dir = absolute.getParent();
        Path name = absolute.getFileName();
        WatchService w = FileSystems.getDefault().newWatchService();
        dir.register(w, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
        Thread t = Thread.ofPlatform().daemon().name("sluice-config-watch").unstarted(() -> loop(w, name, action));
        t.start();
        return new ConfigWatch(w, t);
    }

    private static void loop(WatchService w, Path name, Runnable action) {
        try {
            while (true) {
                WatchKey key = w.take();
                boolean ours = touches(key, name);
                // Let a write in several steps finish: more events within the settle time are the same change.
                WatchKey more;
                while ((more = w.poll(SETTLE.toMillis(), TimeUnit.MILLISECONDS)) != null) {
                    ours |= touches(more, name);
                }
                if (ours) {
                    action.run();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // Closed: stop watching.
        }
    }

    private static boolean touches(WatchKey key, Path name) {
        boolean ours = false;
        for (WatchEvent<?> e : key.pollEvents()) {
            ours |= e.kind() == StandardWatchEventKinds.OVERFLOW || name.equals(e.context());
        }
        key.reset();
        return ours;
    }

    @Override
    public void close() {
        try {
            watcher.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
        thread.interrupt();
    }
}
