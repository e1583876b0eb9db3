from django.urls import path

from characters import catalog_views, views

app_name = "characters"

urlpatterns = [
    path("", views.character_list, name="list"),
    path("new/", views.character_create, name="create"),
    path("<int:pk>/", views.character_detail, name="detail"),
    path("<int:pk>/edit/", views.character_edit, name="edit"),
    path("<int:pk>/history/", views.character_history, name="history"),
    path("<int:pk>/hp/", views.character_hp, name="hp"),
    path("<int:pk>/effects/", views.effect_add, name="effect_add"),
    path("<int:pk>/effects/<int:effect_pk>/free/", views.effect_free, name="effect_free"),
    path("<int:pk>/potions/", views.potion_grant, name="potion_grant"),
    path("<int:pk>/potions/<int:potion_pk>/use/", views.potion_use, name="potion_use"),
    # The portrait.
    path("<int:pk>/portrait/", views.portrait_upload, name="portrait_upload"),
    path("<int:pk>/portrait/remove/", views.portrait_remove, name="portrait_remove"),
    # The catalogs in the site.
    path("catalog/", catalog_views.catalog_index, name="catalog_index"),
    path("catalog/<str:system>/", catalog_views.catalog, name="catalog"),
    path("catalog/<str:system>/<str:kind>/new/", catalog_views.catalog_add, name="catalog_add"),
    path(
        "catalog/<str:system>/<str:kind>/<int:entry_pk>/edit/",
        catalog_views.catalog_edit,
        name="catalog_edit",
    ),
    path(
        "<int:pk>/proposals/<int:proposal_pk>/decide/",
        views.proposal_decide,
        name="proposal_decide",
    ),
]
