# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""A warm interpreter of one of cinder_ma's commands (run as a script by
:class:`tests.functional.fixtures.ForkServer`, never imported by the
processes under test).

It imports the command's module (``argv[2]``) once, as the console
script would, with the venv's ``bin`` directory (``argv[1]``) first on
``sys.path`` as a console script has it, then the modules that its
``main()`` imports on its way (``argv[3:]``), and starts no thread. Then,
for each request (a JSON line on standard input: ``argv``, ``cwd``,
``env``, ``stdout``, ``stderr``, ``status``), it forks: the child makes
a session of its own, takes the request's standard streams, working
directory, environment and ``sys.argv``, and runs ``sys.exit(main())``
of the module as the console script does, a fresh process in all but
the time its imports took. The server answers the child's process id
(a JSON line on standard output). When a child exits, the server writes
its exit status (negative: the signal that killed it) into the
request's ``status`` file before it reaps it, so that the process id
stays the child's while its status is unknown. End of input (the test
process is gone) ends the server; its children run on.
"""

import importlib
import json
import os
import select
import sys
import threading

#: Seconds between two looks for exited children.
REAP_INTERVAL = 0.02


def _write_status(path, code):
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(str(code))
    os.replace(tmp, path)


def _reap(children):
    for pid, status_path in list(children.items()):
        try:
            info = os.waitid(os.P_PID, pid,
                             os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            info = None
            code = 255
        else:
            if info is None:
                continue
            code = (info.si_status if info.si_code == os.CLD_EXITED
                    else -info.si_status)
        _write_status(status_path, code)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        del children[pid]


def _child(request):
    """In the forked child: become the request's process."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    for fd, key in ((1, 'stdout'), (2, 'stderr')):
        out = os.open(request[key], flags, 0o644)
        os.dup2(out, fd)
        os.close(out)
    os.chdir(request['cwd'])
    os.environ.clear()
    os.environ.update(request['env'])
    sys.argv = list(request['argv'])


def serve(children):
    """Answer requests until end of input; returns the request in a
    forked child, None in the server at the end."""
    buffered = b''
    while True:
        ready, _w, _x = select.select([0], [], [], REAP_INTERVAL)
        _reap(children)
        if not ready:
            continue
        data = os.read(0, 65536)
        if not data:
            return None
        buffered += data
        while b'\n' in buffered:
            line, buffered = buffered.split(b'\n', 1)
            request = json.loads(line)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                return request
            children[pid] = request['status']
            os.write(1, json.dumps({'pid': pid}).encode() + b'\n')


def main():
    bin_dir, module_name = sys.argv[1], sys.argv[2]
    sys.path[0] = bin_dir
    module = importlib.import_module(module_name)
    for name in sys.argv[3:]:
        importlib.import_module(name)
    if threading.active_count() != 1:
        # Forking would copy a thread's locks, not the thread.
        print('forkserver: %s started threads on import: %s' % (
            module_name, threading.enumerate()), file=sys.stderr)
        return 2
    os.write(1, json.dumps({'ready': os.getpid()}).encode() + b'\n')
    request = serve({})
    if request is None:
        return 0
    _child(request)
    return module.main()


if __name__ == '__main__':
    sys.exit(main())
