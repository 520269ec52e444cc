import HTTPKit
import Music
import QBTCore

/// `/music/library`'s body: the library listing as the web interface reads it.
enum MusicListingJSON {
    static func encode(_ listing: MusicLibrary.Listing, encrypted: Bool) -> [UInt8] {
        let id: (Int64?) -> JSONValue = { $0.map { .int($0) } ?? .null }
        let number: (Int?) -> JSONValue = { $0.map { .int(Int64($0)) } ?? .null }
        return JSONValue.object([
            "version": .int(Int64(listing.version)),
            "encrypted": .bool(encrypted),
            "artists": .array(listing.artists.map { .object(["id": .int($0.id), "name": .string($0.name)]) }),
            "albums": .array(listing.albums.map {
                .object(["id": .int($0.id), "title": .string($0.title), "artist": .string($0.artist), "artistId": id($0.artistID),
                         "year": .string($0.year), "trackCount": .int(Int64($0.trackCount))])
            }),
            "tracks": .array(listing.tracks.map {
                .object(["id": .int($0.id), "title": .string($0.title), "artist": .string($0.artist), "artistId": id($0.artistID),
                         "album": .string($0.album), "albumId": id($0.albumID), "trackNumber": number($0.trackNumber),
                         "discNumber": number($0.discNumber), "duration": .double($0.duration),
                         "error": $0.error.map { .string($0) } ?? .null])
            }),
        ]).serialized()
    }
}
