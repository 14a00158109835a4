"""The first account of a fresh site: asked for at a terminal, made with a generated password
otherwise (`make serve` runs it before starting the site). Nothing happens once any account
exists, so running it again is harmless."""
import getpass
import secrets
import sys

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Create the first organizer account (a superuser) of an empty site."

    def add_arguments(self, parser):
        parser.add_argument("--noinput", "--no-input", action="store_false", dest="interactive",
                            help="Ask nothing: make 'organizer' with a generated password and print it.")
        parser.add_argument("--username", default="organizer")
        parser.add_argument("--email", default="")

    def handle(self, *, interactive, username, email, **options):
        users = get_user_model().objects
        if users.exists():
            self.stdout.write(f"{users.count()} account(s) exist already: nothing to do.")
            return
        ask = interactive and sys.stdin.isatty()
        if ask:
            username, email, password = self._ask(username, email)
        else:
            password = secrets.token_urlsafe(12)
        users.create_superuser(username=username, email=email, password=password)
        shown = "the one you typed" if ask else password
        self.stdout.write(self.style.SUCCESS(f"First organizer: {username}, password: {shown}"))
        self.stdout.write("Sign in, then name this account under `organizers:` in a competition's YAML "
                          "(docs/organizers.md).")

    def _ask(self, username: str, email: str) -> tuple[str, str, str]:
        username = input(f"Organizer's username [{username}]: ").strip() or username
        email = input("E-mail (for password resets, may be empty): ").strip() or email
        for _ in range(3):
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                self.stderr.write("The two passwords differ.")
                continue
            try:
                validate_password(password)
            except ValidationError as error:
                self.stderr.write(" ".join(error.messages))
                continue
            return username, email, password
        raise CommandError("no password chosen")
