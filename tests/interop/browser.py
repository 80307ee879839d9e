"""A browser for the login tests: `$BROWSER URL` opens the login page the
way a person's browser would, following its redirects to toolsift's
loopback callback, in the background (the command returns at once, as a
desktop browser's does). Its last page, or why it failed, goes to
$TOOLSIFT_TEST_BROWSER_LOG when that is set. With
$TOOLSIFT_TEST_BROWSER_USER, it is that person's browser: signed in to the
authorization server (its `user` cookie)."""

import os
import sys
import urllib.request


def main():
    url = sys.argv[-1]
    if os.fork() != 0:
        return
    os.setsid()
    log = os.environ.get("TOOLSIFT_TEST_BROWSER_LOG")
    try:
        request = urllib.request.Request(url)
        user = os.environ.get("TOOLSIFT_TEST_BROWSER_USER")
        if user:
            request.add_header("Cookie", f"user={user}")
        with urllib.request.urlopen(request, timeout=30) as page:
            said = f"{page.status} {page.geturl()}\n"
    except Exception as e:  # noqa: BLE001 - said in the log
        said = f"failed: {e}\n"
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(said)
    os._exit(0)


if __name__ == "__main__":
    main()
