"""Admin pages that only show: for rows that change through services (audited, checked)."""


class ReadOnlyAdmin:
    """Mix into a ModelAdmin or inline to show rows without add, change or delete."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
