"""A tiny GTK window that offers files as a drag source, for the e2e suite's real drag-and-drop.

Run with the system Python (PyGObject, Debian's python3-gi and gir1.2-gtk-3.0), not the venv:

    /usr/bin/python3 drag_source.py X Y PATH...

It shows a 60×40 window at root position (X, Y) offering the paths as `text/uri-list` (what a file
manager offers), prints `ready CX CY` (its centre, in root pixels) once it is on screen, and quits
when a drag from it ends, or after two minutes. The test then drives the pointer with xdotool:
press on the centre, move onto the app's window, release.
"""

import sys
from pathlib import Path

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import GLib, Gdk, Gtk  # noqa: E402

WIDTH, HEIGHT = 60, 40


def main():
    x, y = int(sys.argv[1]), int(sys.argv[2])
    uris = [Path(p).resolve().as_uri() for p in sys.argv[3:]]

    win = Gtk.Window(title="corral-e2e-drag-source")
    win.set_decorated(False)
    win.set_default_size(WIDTH, HEIGHT)
    win.move(x, y)
    box = Gtk.EventBox()
    box.add(Gtk.Label(label="drag"))
    win.add(box)

    box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [Gtk.TargetEntry.new("text/uri-list", 0, 0)],
                        Gdk.DragAction.COPY)
    box.connect("drag-data-get", lambda _w, _ctx, data, _info, _time: data.set_uris(uris))
    box.connect("drag-end", lambda *_: GLib.timeout_add(300, Gtk.main_quit))

    def shown(*_):
        ox, oy = win.get_window().get_origin()[1:]
        print(f"ready {ox + WIDTH // 2} {oy + HEIGHT // 2}", flush=True)
        return False

    win.connect("map-event", lambda *_: GLib.timeout_add(200, shown))
    win.connect("destroy", Gtk.main_quit)
    GLib.timeout_add_seconds(120, Gtk.main_quit)
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
